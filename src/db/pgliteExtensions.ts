// The PostgreSQL extensions the migrations create (search: pg_trgm, unaccent). PGlite
// ships each as a bundle that must be handed to every instance opening a database that uses
// them, before the first statement: a database made with them cannot be read without them.
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';

export const PGLITE_EXTENSIONS = { pg_trgm, unaccent };
