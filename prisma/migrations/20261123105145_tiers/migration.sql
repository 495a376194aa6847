-- CreateTable
CREATE TABLE "Tier" (
    "code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scoreEligible" BOOLEAN NOT NULL,
    "dailyLimit" INTEGER NOT NULL,
    "burstPerSecond" INTEGER NOT NULL,
    "directReportLimit" INTEGER NOT NULL,
    "priceCents" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "Tier_pkey" PRIMARY KEY ("code")
);

-- Seed the tiers. Changing a tier's numbers later is a new migration (an UPDATE), so every
-- deployment agrees on what a tier means.
INSERT INTO "Tier" ("code", "name", "scoreEligible", "dailyLimit", "burstPerSecond", "directReportLimit", "priceCents", "position") VALUES
  ('free',       'Free',       false,       0,   5,    20,      0, 0),
  ('developer',  'Developer',  true,     1000,   5,   100,   2900, 1),
  ('startup',    'Startup',    true,    25000,  25,  1000,  19900, 2),
  ('business',   'Business',   true,   250000, 100,  5000,  99900, 3),
  ('enterprise', 'Enterprise', true,  5000000, 500, 50000, 499900, 4);
