-- CreateIndex
CREATE INDEX "transcript_entries_session_id_type_seq_idx" ON "transcript_entries"("session_id", "type", "seq");
