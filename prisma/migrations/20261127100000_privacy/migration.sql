-- Privacy (src/domain/privacy.ts): a person's data found by e-mail for their export and
-- erasure, an erased customer marked as such, and the two functions erasure rewrites text and
-- JSON with. Which column holds what, and what erasure does to it, is the domain's table
-- (PERSONAL_DATA); these functions only apply it, inside the database, so an erasure of a
-- thousand orders is a statement per table rather than a round trip per row.

-- AlterTable
ALTER TABLE "Customer" ADD COLUMN     "redactedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Customer_storeId_createdAt_id_idx" ON "Customer"("storeId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Order_storeId_customerEmail_idx" ON "Order"("storeId", "customerEmail");

-- CreateIndex
CREATE INDEX "StorefrontEvent_storeId_customerEmail_idx" ON "StorefrontEvent"("storeId", "customerEmail");

-- CreateIndex
CREATE INDEX "Return_storeId_customerEmail_idx" ON "Return"("storeId", "customerEmail");

-- True when the text holds one of a person's values: once folded as the search documents are
-- ("ZOË@Example.com" is "zoe@example.com"), one of `words` (each an alternation of some of the
-- values, each value a whole word or more: "Ada" is found in "Ada Lovelace", not in "Adapter")
-- matches it, or its digits hold one of `digits` (phone numbers however they were written). One
-- expression without subqueries, so that it is inlined where it is called, as often as a JSON
-- document has strings.
CREATE FUNCTION "privacy_matches"(value text, words text[], digits text[]) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN coalesce(search_fold(value) ~ ANY (words) OR search_digits(value) ~ ANY (digits), false);

-- A JSON document with a person's values replaced: every string that matches them
-- (privacy_matches) becomes `marker`, and so does every value under one of `keys` (an e-mail,
-- a name, an address: a string becomes `marker`, a number or boolean null, and an object or
-- array under it is redacted whole), except the identifiers inside such an object (`id` and
-- members ending in `Id`), which are kept while `keep_ids`. `personal` says the document is
-- already under such a key (true at the top: redact it whole). An object or array whose text
-- names none of `keys` and matches none of the values is left as it is without walking it.
CREATE FUNCTION "privacy_redact_json"(doc jsonb, keys text[], words text[], digits text[], marker text, personal boolean, keep_ids boolean)
  RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  txt text;
BEGIN
  IF doc IS NULL THEN RETURN NULL; END IF;
  IF NOT personal AND jsonb_typeof(doc) IN ('object', 'array') THEN
    txt := doc::text;
    IF NOT (cardinality(keys) > 0 AND txt ~ ('"(' || array_to_string(keys, '|') || ')": '))
       AND NOT (cardinality(words) + cardinality(digits) > 0 AND privacy_matches(txt, words, digits)) THEN
      RETURN doc;
    END IF;
  END IF;
  CASE jsonb_typeof(doc)
    WHEN 'object' THEN
      RETURN (SELECT coalesce(jsonb_object_agg(e.key, privacy_redact_json(e.value, keys, words, digits, marker,
          e.key = ANY (keys) OR (personal AND NOT (keep_ids AND (e.key = 'id' OR e.key LIKE '%Id'))), keep_ids)), '{}'::jsonb)
        FROM jsonb_each(doc) AS e);
    WHEN 'array' THEN
      RETURN (SELECT coalesce(jsonb_agg(privacy_redact_json(e.value, keys, words, digits, marker, personal, keep_ids) ORDER BY e.n), '[]'::jsonb)
        FROM jsonb_array_elements(doc) WITH ORDINALITY AS e(value, n));
    WHEN 'string' THEN
      RETURN CASE WHEN personal OR privacy_matches(doc #>> '{}', words, digits) THEN to_jsonb(marker) ELSE doc END;
    WHEN 'null' THEN
      RETURN doc;
    ELSE
      RETURN CASE WHEN personal THEN 'null'::jsonb ELSE doc END;
  END CASE;
END
$$;
