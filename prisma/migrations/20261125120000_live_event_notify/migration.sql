-- Live updates (GraphQL subscriptions): every event a subscriber may want is announced on
-- the channel "live_events" by the transaction that writes it. PostgreSQL delivers a NOTIFY
-- only when that transaction commits, to every listening session of every instance, so a
-- rolled-back change announces nothing. The payload names the event and what subscribers
-- filter on (store, status, location and its owner, product); the data itself is read
-- again by each instance, so the payload stays far below NOTIFY's 8000-byte limit.
CREATE FUNCTION "announce_live_event"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('live_events', json_build_object(
    'id', NEW.id,
    'storeId', NEW."storeId",
    'topic', NEW.topic,
    'subjectId', NEW."subjectId",
    'status', NEW.data->>'status',
    'locationId', NEW.data->>'locationId',
    'productId', NEW.data->>'productId',
    -- A fulfillment service sees the levels at its own locations, whoever owns the product.
    'locationStoreId', CASE WHEN NEW.topic = 'inventory_level.updated'
      THEN (SELECT "storeId" FROM "Location" WHERE id = NEW.data->>'locationId') END
  )::text);
  RETURN NULL;
END
$$;

-- Returns announce their creation and each change of status; other return events
-- (notes, tags, removed items) carry no previousStatus and are not announced.
CREATE TRIGGER "Event_announce_live" AFTER INSERT ON "Event" FOR EACH ROW
  WHEN (NEW.topic IN ('inventory_level.updated', 'return.created') OR (NEW.topic = 'return.updated' AND NEW.data ? 'previousStatus'))
  EXECUTE FUNCTION "announce_live_event"();
