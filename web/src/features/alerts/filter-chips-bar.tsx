import { typePresentation } from "@turnout/domain";
import type { ReactElement } from "react";
import { Button, Chip } from "../../ui/kit/kit";
import type { FeedFilters } from "./alerts-api";
import { TypeIcon } from "./type-badge";
import "./feed.css";

type FilterName = Exclude<keyof FeedFilters, "view">;

/**
 * The active filters (search text, agency, type, area, machine pages shown), each removable, and
 * 'Clear All'. The unit view has chips of its own (FeedViewChips).
 */
export function FilterChipsBar({
  filters,
  onRemove,
  onClearAll,
}: {
  filters: FeedFilters;
  onRemove: (name: FilterName) => void;
  onClearAll: () => void;
}) {
  const chips: Array<{ name: FilterName; label: string; icon?: ReactElement }> = [];
  if (filters.search.trim()) chips.push({ name: "search", label: `Search: ${filters.search.trim()}` });
  if (filters.agency) chips.push({ name: "agency", label: `Agency: ${filters.agency.name}` });
  if (filters.type) {
    const presentation = typePresentation(filters.type);
    chips.push({
      name: "type",
      label: `Type: ${presentation.label}`,
      icon: <TypeIcon presentation={presentation} />,
    });
  }
  if (filters.area) chips.push({ name: "area", label: `Area: ${filters.area}` });
  if (filters.showMachine) chips.push({ name: "showMachine", label: "Machine and test pages shown" });
  if (chips.length === 0) return null;

  return (
    <section aria-label="Active filters" className="feed-chips feed-chips--filters">
      {chips.map((chip) => (
        <Chip
          key={chip.name}
          label={chip.label}
          icon={chip.icon}
          color="secondary"
          variant="outlined"
          removable
          onClick={() => onRemove(chip.name)}
          // Backspace and Delete remove a focused chip too, as they did MUI's removable chip.
          onKeyUp={(event) => {
            if (event.key === "Backspace" || event.key === "Delete") onRemove(chip.name);
          }}
          aria-label={`Remove filter ${chip.label}`}
        />
      ))}
      <Button size="small" className="feed-chips__clear" onClick={onClearAll}>
        Clear All
      </Button>
    </section>
  );
}
