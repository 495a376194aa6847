-- CreateTable
CREATE TABLE "ApiKeyCountry" (
    "apiKeyId" INTEGER NOT NULL,
    "country" TEXT NOT NULL,
    "firstSeenAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiKeyCountry_pkey" PRIMARY KEY ("apiKeyId","country")
);

-- AddForeignKey
ALTER TABLE "ApiKeyCountry" ADD CONSTRAINT "ApiKeyCountry_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "ApiKey"("id") ON DELETE CASCADE ON UPDATE CASCADE;
