// The shape of src/generated/readModel.ts (written by tools/read-model/generator.mjs).
export interface ReadModelField {
  name: string;
  column: string;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  /** Scalar type (String, Int, Decimal, DateTime, ...), enum name or related model name. */
  type: string;
  isList: boolean;
  isRequired: boolean;
  /** The column's native type when the schema names one (`Date`, `Decimal`, ...). */
  nativeType: string | null;
  relationName?: string;
  /** Key columns on this side (empty on the side that the other model's key points at). */
  relationFromFields?: string[];
  relationToFields?: string[];
}

export interface ReadModelModel {
  name: string;
  table: string;
  primaryKey: string[] | null;
  /** Unique keys as Prisma names them in a `where` (`id`, `storeId_name`). */
  uniques: { name: string; fields: string[] }[];
  fields: ReadModelField[];
}

export interface ReadModel {
  models: Record<string, ReadModelModel>;
  /** Enum name -> database type name. */
  enums: Record<string, string>;
}
