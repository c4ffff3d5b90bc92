import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useConfirmation } from "../../../ui/confirmation";
import { AdminList } from "./admin-list";

interface Row {
  id: number;
  name: string;
  failed: boolean;
}

const rows = (count: number): Row[] =>
  Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: `Row ${index + 1}`,
    failed: index % 2 === 0,
  }));

/** A list over a real query whose answers the test scripts one call at a time. */
function List({
  load,
  onRetryRow,
  paging,
}: {
  load: () => Promise<Row[]>;
  onRetryRow?: (row: Row) => void;
  paging?: boolean;
}) {
  const query = useQuery({ queryKey: ["rows"], queryFn: load, retry: false });
  const confirm = useConfirmation();
  return (
    <>
      <AdminList
        query={query}
        loadingLabel="Loading rows"
        emptyText="No rows yet."
        label="Rows"
        rowKey={(row) => row.id}
        columns={[
          { header: "Name", cell: (row) => row.name },
          { header: "State", cell: (row) => (row.failed ? "Failed" : "Sent") },
        ]}
        actions={[
          {
            label: "Retry",
            ariaLabel: (row) => `Retry ${row.name}`,
            showIf: (row) => row.failed,
            onClick: (row) => onRetryRow?.(row),
          },
          {
            label: "Delete",
            color: "error",
            ariaLabel: (row) => `Delete ${row.name}`,
            onClick: (row) =>
              confirm.ask({
                title: `Delete ${row.name}?`,
                text: "It is removed for good.",
                confirmLabel: "Delete",
                onConfirm: () => {
                  onRetryRow?.({ ...row, name: `deleted ${row.name}` });
                  confirm.close();
                },
              }),
          },
        ]}
        paging={paging ? { rowsPerPage: 25, rowsPerPageOptions: [25, 50] } : undefined}
      />
      {confirm.dialog()}
    </>
  );
}

function renderList(props: Parameters<typeof List>[0]) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return {
    user: userEvent.setup(),
    ...render(
      <QueryClientProvider client={client}>
        <List {...props} />
      </QueryClientProvider>,
    ),
  };
}

describe("AdminList", () => {
  it("shows a spinner named for the list until the answer, then the table", async () => {
    let answer: (value: Row[]) => void = () => {};
    renderList({ load: () => new Promise((resolve) => (answer = resolve)) });
    expect(screen.getByRole("progressbar", { name: "Loading rows" })).toBeInTheDocument();
    answer(rows(2));
    const table = await screen.findByRole("table", { name: "Rows" });
    expect(screen.queryByRole("progressbar")).not.toBeInTheDocument();
    expect(
      within(table)
        .getAllByRole("columnheader")
        .map((cell) => cell.textContent),
    ).toEqual(["Name", "State", "Actions"]);
    expect(within(table).getAllByRole("row")).toHaveLength(3);
  });

  it("says why the list failed and asks again on Retry", async () => {
    const load = vi
      .fn<() => Promise<Row[]>>()
      .mockRejectedValueOnce(new Error("The server is not answering."))
      .mockResolvedValueOnce(rows(1));
    const { user } = renderList({ load });
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("The server is not answering.");
    await user.click(within(alert).getByRole("button", { name: "Retry" }));
    expect(await screen.findByRole("table", { name: "Rows" })).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(2);
    await waitFor(() => expect(screen.queryByRole("alert")).not.toBeInTheDocument());
  });

  it("says so when there is nothing, with no table", async () => {
    renderList({ load: async () => [] });
    expect(await screen.findByText("No rows yet.")).toBeInTheDocument();
    expect(screen.queryByRole("table")).not.toBeInTheDocument();
  });

  it("names each row's actions for their row and leaves out those that do not apply", async () => {
    const onRetryRow = vi.fn();
    const { user } = renderList({ load: async () => rows(2), onRetryRow });
    await screen.findByRole("table", { name: "Rows" });
    expect(screen.getByRole("button", { name: "Retry Row 1" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Retry Row 2" })).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Retry Row 1" }));
    expect(onRetryRow).toHaveBeenCalledWith(expect.objectContaining({ id: 1 }));
  });

  it("asks before a confirmed action and does nothing on Cancel", async () => {
    const onRetryRow = vi.fn();
    const { user } = renderList({ load: async () => rows(2), onRetryRow });
    await user.click(await screen.findByRole("button", { name: "Delete Row 2" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Delete Row 2?" });
    expect(dialog).toHaveTextContent("It is removed for good.");
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    expect(onRetryRow).not.toHaveBeenCalled();

    await user.click(screen.getByRole("button", { name: "Delete Row 2" }));
    const again = await screen.findByRole("alertdialog", { name: "Delete Row 2?" });
    await user.click(within(again).getByRole("button", { name: "Delete" }));
    expect(onRetryRow).toHaveBeenCalledWith(expect.objectContaining({ name: "deleted Row 2" }));
  });

  it("draws one page at a time when paged", async () => {
    const { user } = renderList({ load: async () => rows(60), paging: true });
    const table = await screen.findByRole("table", { name: "Rows" });
    // 25 rows and the heading row.
    expect(within(table).getAllByRole("row")).toHaveLength(26);
    expect(within(table).getByText("Row 25")).toBeInTheDocument();
    expect(within(table).queryByText("Row 26")).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Go to next page" }));
    expect(within(table).getByText("Row 26")).toBeInTheDocument();
    expect(within(table).queryByText("Row 1")).not.toBeInTheDocument();
    // Two pages of MUI rows take seconds to draw on a busy 2-core machine.
  }, 20_000);
});
