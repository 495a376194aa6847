-- CreateTable
CREATE TABLE "Feed" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "weight" DOUBLE PRECISION NOT NULL,
    "source" TEXT NOT NULL,
    "entryCount" INTEGER NOT NULL,
    "errorCount" INTEGER NOT NULL,
    "importedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Feed_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FeedEntry" (
    "feedId" INTEGER NOT NULL,
    "cidr" TEXT NOT NULL,
    "line" INTEGER NOT NULL,

    CONSTRAINT "FeedEntry_pkey" PRIMARY KEY ("feedId","cidr")
);

-- CreateTable
CREATE TABLE "Publication" (
    "id" SERIAL NOT NULL,
    "version" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "publishedAt" TIMESTAMPTZ(3),
    "entityCount" INTEGER NOT NULL DEFAULT 0,
    "stats" JSONB,

    CONSTRAINT "Publication_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PublishedSummary" (
    "publicationId" INTEGER NOT NULL,
    "workspaceId" INTEGER NOT NULL,
    "code" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "score" INTEGER NOT NULL,
    "level" TEXT NOT NULL,
    "counts" JSONB NOT NULL,
    "reporters" INTEGER NOT NULL,
    "firstSeen" TIMESTAMPTZ(3),
    "lastSeen" TIMESTAMPTZ(3),

    CONSTRAINT "PublishedSummary_pkey" PRIMARY KEY ("publicationId","workspaceId","code","key")
);

-- CreateIndex
CREATE UNIQUE INDEX "Feed_name_key" ON "Feed"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Publication_version_key" ON "Publication"("version");

-- AddForeignKey
ALTER TABLE "FeedEntry" ADD CONSTRAINT "FeedEntry_feedId_fkey" FOREIGN KEY ("feedId") REFERENCES "Feed"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PublishedSummary" ADD CONSTRAINT "PublishedSummary_publicationId_fkey" FOREIGN KEY ("publicationId") REFERENCES "Publication"("id") ON DELETE CASCADE ON UPDATE CASCADE;
