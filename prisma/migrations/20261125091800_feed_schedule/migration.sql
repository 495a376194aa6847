-- CreateTable
CREATE TABLE "FeedSchedule" (
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "everySeconds" INTEGER NOT NULL,
    "format" TEXT NOT NULL,
    "column" TEXT,
    "allowPartial" BOOLEAN NOT NULL DEFAULT false,
    "weight" DOUBLE PRECISION,
    "etag" TEXT,
    "lastModified" TEXT,
    "contentHash" TEXT,
    "nextFetchAt" TIMESTAMPTZ(3) NOT NULL,
    "lastFetchAt" TIMESTAMPTZ(3),
    "lastOutcome" TEXT,
    "lastHttpStatus" INTEGER,
    "lastEntries" INTEGER,
    "lastError" TEXT,
    "lastDurationMs" INTEGER,
    "lastBytes" INTEGER,
    "lastSuccessAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FeedSchedule_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "FeedSchedule_nextFetchAt_idx" ON "FeedSchedule"("nextFetchAt");
