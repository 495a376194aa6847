-- CreateTable
CREATE TABLE "OverrideRule" (
    "id" SERIAL NOT NULL,
    "workspaceId" INTEGER NOT NULL,
    "targetKind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "reason" TEXT NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "authorKind" TEXT NOT NULL,
    "authorId" INTEGER NOT NULL,
    "authorLabel" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3),
    "expiredAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "writtenXid" BIGINT NOT NULL,

    CONSTRAINT "OverrideRule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OverrideAudit" (
    "id" SERIAL NOT NULL,
    "workspaceId" INTEGER NOT NULL,
    "ruleId" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "surface" TEXT NOT NULL,
    "actorKind" TEXT NOT NULL,
    "actorId" INTEGER NOT NULL,
    "actorLabel" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OverrideAudit_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "OverrideRule_workspaceId_expiredAt_id_idx" ON "OverrideRule"("workspaceId", "expiredAt", "id");

-- CreateIndex
CREATE INDEX "OverrideRule_writtenXid_id_idx" ON "OverrideRule"("writtenXid", "id");

-- CreateIndex
CREATE INDEX "OverrideAudit_workspaceId_id_idx" ON "OverrideAudit"("workspaceId", "id");

-- AddForeignKey
ALTER TABLE "OverrideRule" ADD CONSTRAINT "OverrideRule_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OverrideAudit" ADD CONSTRAINT "OverrideAudit_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The audit trail is append-only: a row is never changed once written (deleting a workspace still removes its rows).
CREATE FUNCTION "OverrideAudit_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'OverrideAudit rows are append-only';
END $$;
CREATE TRIGGER "OverrideAudit_no_update" BEFORE UPDATE ON "OverrideAudit" FOR EACH ROW EXECUTE FUNCTION "OverrideAudit_append_only"();
