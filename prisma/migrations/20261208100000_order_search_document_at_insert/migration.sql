-- An order is inserted with its search document complete (issue 46). Its lines reference it, so
-- they go in after it, and until now their statement trigger rewrote the order row with the
-- lines' text: an update that cannot be HOT ("searchText" has a GIN index), so every index of
-- Order was written twice per order created, and the update fired the order's audit and
-- overview triggers once more.
-- * order_search_document_with(o, lines): the document of an order with these lines, which
--   the statement that inserts an order and its lines gives the order's insert. It is
--   order_search_document(o) over lines handed to it instead of the stored ones; the two are
--   kept apart (order_search_document's subquery is what the refresh and every update run,
--   and a call of one SQL function from another costs each of them), and
--   test/rest/orderSearchDocument.test.ts checks that orders written through the doors hold
--   exactly order_search_document and that their insert is not followed by an update.
-- * The insert of an order keeps a document it is given (only the statement that also inserts
--   the order's lines gives one); an order inserted without one gets the document of its own
--   columns, as before. The lines' statement trigger still computes order_search_document of
--   each order whose lines changed and rewrites a document that differs, so a document given
--   at the insert is checked against the lines as stored, and every other path that changes
--   lines (a sync, an edit, a delete, SQL) refreshes it as before. A given document is no more
--   trusted than any other write of the column: an UPDATE of "searchText" alone was never
--   recomputed either.
CREATE FUNCTION "order_search_document_with"(o "Order", lines "OrderLineItem"[]) RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN search_fold(concat_ws(E'\n', order_search_fields(o), array_to_string(o.tags, E'\n'),
    (SELECT string_agg(concat_ws(E'\n', l.sku, l.title), E'\n' ORDER BY l.position, l.id) FROM unnest(lines) l)));

CREATE OR REPLACE FUNCTION "search_document_own"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  CASE TG_TABLE_NAME
    WHEN 'Order' THEN
      IF TG_OP = 'INSERT' THEN
        IF NEW."searchText" IS NULL THEN
          NEW."searchText" := search_fold(concat_ws(E'\n', order_search_fields(NEW), array_to_string(NEW.tags, E'\n')));
        END IF;
      ELSE
        NEW."searchText" := order_search_document(NEW);
      END IF;
    WHEN 'Return' THEN NEW."searchText" := return_search_document(NEW);
    WHEN 'Customer' THEN NEW."searchText" := customer_search_document(NEW);
    WHEN 'Product' THEN NEW."searchText" := product_search_document(NEW);
  END CASE;
  RETURN NEW;
END
$$;
