-- CreateTable
CREATE TABLE "ProviderCancellation" (
    "id" SERIAL NOT NULL,
    "requestId" INTEGER NOT NULL,
    "providerId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "doneAt" TIMESTAMPTZ(3),

    CONSTRAINT "ProviderCancellation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ProviderCancellation_requestId_key" ON "ProviderCancellation"("requestId");

-- CreateIndex
CREATE INDEX "ProviderCancellation_status_nextAttemptAt_idx" ON "ProviderCancellation"("status", "nextAttemptAt");
