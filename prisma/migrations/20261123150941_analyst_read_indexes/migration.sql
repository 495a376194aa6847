-- DropIndex
DROP INDEX "Report_subjectId_idx";

-- DropIndex
DROP INDEX "Report_workspaceId_createdAt_idx";

-- DropIndex
DROP INDEX "ReportLink_subjectId_idx";

-- CreateIndex
CREATE INDEX "Report_workspaceId_createdAt_id_outcomeCode_subjectId_idx" ON "Report"("workspaceId", "createdAt", "id", "outcomeCode", "subjectId");

-- CreateIndex
CREATE INDEX "Report_subjectId_id_idx" ON "Report"("subjectId", "id");

-- CreateIndex
CREATE INDEX "ReportLink_subjectId_reportId_idx" ON "ReportLink"("subjectId", "reportId");
