import { DataTable, type DataTableProps } from "./data-table";
import { type QueryLike, QueryState, type QueryStateProps } from "./query-state";

export interface AdminListProps<T>
  extends Omit<DataTableProps<T>, "rows">,
    Omit<QueryStateProps<readonly T[]>, "children" | "query"> {
  /** The query whose answer is the list (its rows' type is the table's). */
  query: QueryLike<readonly T[]>;
  /** The rows shown of the answer (a filter), when not all of them. */
  select?: (rows: readonly T[]) => readonly T[];
}

/**
 * An admin list from a query: the query's states (spinner, failure with Retry, empty text) and then
 * the table with its columns, row actions and optional paging.
 */
export function AdminList<T>({
  query,
  loadingLabel,
  emptyText,
  isEmpty,
  errorText,
  spinnerSize,
  select = (rows) => rows,
  ...table
}: AdminListProps<T>) {
  return (
    <QueryState
      query={query}
      loadingLabel={loadingLabel}
      emptyText={emptyText}
      isEmpty={isEmpty ?? ((rows) => select(rows).length === 0)}
      errorText={errorText}
      spinnerSize={spinnerSize}
    >
      {(rows) => <DataTable {...table} rows={select(rows)} />}
    </QueryState>
  );
}
