-- AlterTable
ALTER TABLE "Tier" ADD COLUMN     "agentDailyLimit" INTEGER NOT NULL DEFAULT 0;

-- The agent-protocol (MCP) surface's own daily entitlement per tier. Free stays at 0: the tier does
-- not include score on any surface (scoreEligible false). A tier added later without this column
-- set gets 0 (no agent score calls) rather than an unbounded default.
UPDATE "Tier" SET "agentDailyLimit" = 500     WHERE "code" = 'developer';
UPDATE "Tier" SET "agentDailyLimit" = 10000   WHERE "code" = 'startup';
UPDATE "Tier" SET "agentDailyLimit" = 100000  WHERE "code" = 'business';
UPDATE "Tier" SET "agentDailyLimit" = 2000000 WHERE "code" = 'enterprise';
