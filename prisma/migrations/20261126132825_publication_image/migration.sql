-- AlterTable
ALTER TABLE "Publication" ADD COLUMN     "imageBytes" INTEGER;

-- CreateTable
CREATE TABLE "PublicationImagePart" (
    "publicationId" INTEGER NOT NULL,
    "part" INTEGER NOT NULL,
    "bytes" BYTEA NOT NULL,

    CONSTRAINT "PublicationImagePart_pkey" PRIMARY KEY ("publicationId","part")
);

-- AddForeignKey
ALTER TABLE "PublicationImagePart" ADD CONSTRAINT "PublicationImagePart_publicationId_fkey" FOREIGN KEY ("publicationId") REFERENCES "Publication"("id") ON DELETE CASCADE ON UPDATE CASCADE;
