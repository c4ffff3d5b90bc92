import Button, { type ButtonProps } from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import type { SxProps, Theme } from "@mui/material/styles";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell, { type TableCellProps } from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TablePagination from "@mui/material/TablePagination";
import TableRow, { type TableRowProps } from "@mui/material/TableRow";
import { type Key, type ReactNode, useEffect, useState } from "react";

/** One column: its heading and what a row shows in it. */
export interface Column<T> {
  /** The heading; a function receives the rows on screen (a select-all box for this page). */
  header: ReactNode | ((pageRows: readonly T[]) => ReactNode);
  cell: (row: T) => ReactNode;
  align?: TableCellProps["align"];
  padding?: TableCellProps["padding"];
  sx?: SxProps<Theme>;
}

/** A button in a row's Actions cell; its accessible name says which row it acts on. */
export interface RowAction<T> {
  label: string;
  ariaLabel?: (row: T) => string;
  onClick: (row: T) => void;
  color?: ButtonProps["color"];
  variant?: ButtonProps["variant"] | ((row: T) => ButtonProps["variant"]);
  disabled?: boolean | ((row: T) => boolean);
  /** Left out of the rows it does not apply to. */
  showIf?: (row: T) => boolean;
}

/** A page at a time: the DOM holds one page, never the whole list. */
export interface Paging {
  rowsPerPageOptions: number[];
  rowsPerPage: number;
}

/** The rows decide the type; columns and actions only read it (NoInfer). */
export interface DataTableProps<T> {
  /** The table's accessible name. */
  label: string;
  rows: readonly T[];
  rowKey: (row: NoInfer<T>) => Key;
  columns: readonly Column<NoInfer<T>>[];
  /** The Actions column: buttons, or any content for each row. */
  actions?: readonly RowAction<NoInfer<T>>[] | ((row: NoInfer<T>) => ReactNode);
  actionsAlign?: "left" | "right";
  rowProps?: (row: NoInfer<T>) => Omit<TableRowProps, "children">;
  paging?: Paging;
  /** An outlined paper around the table (a tab's main list) instead of none (inside a section). */
  outlined?: boolean;
  /** Scroll inside this height with the headings kept in view. */
  maxHeight?: number;
}

function ActionButtons<T>({ row, actions }: { row: T; actions: readonly RowAction<T>[] }) {
  return actions
    .filter((action) => action.showIf?.(row) ?? true)
    .map((action) => (
      <Button
        key={action.label}
        size="small"
        color={action.color}
        variant={typeof action.variant === "function" ? action.variant(row) : action.variant}
        disabled={typeof action.disabled === "function" ? action.disabled(row) : action.disabled}
        onClick={() => action.onClick(row)}
        aria-label={action.ariaLabel?.(row)}
      >
        {action.label}
      </Button>
    ));
}

function usePage(count: number, paging: Paging | undefined) {
  const [page, setPage] = useState(0);
  const [rowsPerPage, setRowsPerPage] = useState(paging?.rowsPerPage ?? count);
  const size = paging ? rowsPerPage : Math.max(count, 1);
  const lastPage = Math.max(0, Math.ceil(count / size) - 1);
  // A new search or a deleted row can leave fewer pages than the one on screen.
  useEffect(() => {
    if (page > lastPage) setPage(lastPage);
  }, [page, lastPage]);
  const shown = Math.min(page, lastPage);
  return { page: shown, size, start: shown * size, setPage, setRowsPerPage };
}

/**
 * The admin console's table: columns, an Actions column of buttons named for their row, and
 * optionally a page at a time. Every admin list is drawn by it, so they look and read alike.
 */
export function DataTable<T>({
  label,
  rows,
  rowKey,
  columns,
  actions,
  actionsAlign = "left",
  rowProps,
  paging,
  outlined = false,
  maxHeight,
}: DataTableProps<T>) {
  const pager = usePage(rows.length, paging);
  const pageRows = paging ? rows.slice(pager.start, pager.start + pager.size) : rows;
  const actionCell = (row: T) =>
    typeof actions === "function" ? actions(row) : actions && <ActionButtons row={row} actions={actions} />;

  const table = (
    <TableContainer sx={maxHeight ? { maxHeight } : undefined}>
      <Table size="small" stickyHeader={maxHeight !== undefined} aria-label={label}>
        <TableHead>
          <TableRow>
            {columns.map((column, index) => (
              <TableCell
                // Columns are fixed for a table's life.
                // biome-ignore lint/suspicious/noArrayIndexKey: see above
                key={index}
                align={column.align}
                padding={column.padding}
              >
                {typeof column.header === "function" ? column.header(pageRows) : column.header}
              </TableCell>
            ))}
            {actions && <TableCell align={actionsAlign}>Actions</TableCell>}
          </TableRow>
        </TableHead>
        <TableBody>
          {pageRows.map((row) => (
            <TableRow key={rowKey(row)} {...rowProps?.(row)}>
              {columns.map((column, index) => (
                <TableCell
                  // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed, as above
                  key={index}
                  align={column.align}
                  padding={column.padding}
                  sx={column.sx}
                >
                  {column.cell(row)}
                </TableCell>
              ))}
              {actions && (
                <TableCell align={actionsAlign} sx={{ whiteSpace: "nowrap" }}>
                  {actionCell(row)}
                </TableCell>
              )}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
  const pagination = paging && (
    <TablePagination
      component="div"
      count={rows.length}
      page={pager.page}
      rowsPerPage={pager.size}
      rowsPerPageOptions={paging.rowsPerPageOptions}
      onPageChange={(_event, next) => pager.setPage(next)}
      onRowsPerPageChange={(event) => {
        pager.setRowsPerPage(Number(event.target.value));
        pager.setPage(0);
      }}
    />
  );
  if (!outlined && !pagination) return table;
  return (
    <Paper variant={outlined ? "outlined" : "elevation"} elevation={outlined ? undefined : 0}>
      {table}
      {pagination}
    </Paper>
  );
}
