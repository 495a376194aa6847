-- CreateIndex
CREATE INDEX "Subject_workspaceId_kind_id_idx" ON "Subject"("workspaceId", "kind", "id");
