-- When a return's label was given or last changed (carrier, tracking number, status): the
-- platform's notice reports it. Returns that already have a label take the time of their
-- newest label event, else (labelled before label events existed) their creation.
ALTER TABLE "Return" ADD COLUMN "labelUpdatedAt" TIMESTAMP(3);

UPDATE "Return" r
SET "labelUpdatedAt" = COALESCE(
  (SELECT max(e."createdAt") FROM "Event" e WHERE e."subjectId" = r.id AND e.topic IN ('return_label.created', 'return_label.updated')),
  r."createdAt")
WHERE r."trackingNumber" IS NOT NULL;
