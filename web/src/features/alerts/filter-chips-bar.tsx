import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import { typePresentation } from "@turnout/domain";
import type { ReactElement } from "react";
import type { FeedFilters } from "./alerts-api";
import { touchTarget } from "./touch-target";
import { TypeIcon } from "./type-badge";

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
    <Box
      component="section"
      aria-label="Active filters"
      sx={{ display: "flex", flexWrap: "wrap", alignItems: "center", gap: 1, mb: 2 }}
    >
      {chips.map((chip) => (
        <Chip
          key={chip.name}
          label={chip.label}
          icon={chip.icon}
          color="secondary"
          variant="outlined"
          onClick={() => onRemove(chip.name)}
          onDelete={() => onRemove(chip.name)}
          aria-label={`Remove filter ${chip.label}`}
          sx={{ ...touchTarget, maxWidth: "100%" }}
        />
      ))}
      <Button size="small" onClick={onClearAll} sx={{ minHeight: 44 }}>
        Clear All
      </Button>
    </Box>
  );
}
