-- Processing may give an item the other of refund and store credit than its return asked for
-- (issue 43, the merchant's choice per item): the asked one is kept here until a reset gives it back.
ALTER TABLE "ReturnItem" ADD COLUMN "requestedOutcome" "ReturnOutcome";
