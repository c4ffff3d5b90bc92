import CheckCircleIcon from "@mui/icons-material/CheckCircle";
import CircularProgress from "@mui/material/CircularProgress";
import InputAdornment from "@mui/material/InputAdornment";
import TextField from "@mui/material/TextField";
import type { PostcodeMatch } from "../api/places";
import { LocationPickerDialog } from "./location-picker-dialog";
import type { LocationSearch } from "./use-location-search";

/** How a chosen place reads: "KANGAROO FLAT, VIC 3555". */
export function placeLabel(place: PostcodeMatch): string {
  return `${place.suburb}, ${place.state_abbreviation} ${place.postcode}`;
}

/**
 * A postcode-or-suburb field driven by useLocationSearch, with its 'Select Your Location' picker: a
 * spinner while it searches, a tick and "Selected: …" once a place is chosen, else the search's
 * error, the form's `error`, or the `hint`.
 */
export function LocationField({
  search,
  label = "Location (postcode or suburb)",
  hint = "Type a 4-digit postcode or at least 3 letters of a suburb",
  error,
  required = false,
  pickerTitle,
}: {
  search: LocationSearch;
  label?: string;
  hint?: string;
  /** A refusal of the form's own (a server's field error). */
  error?: string | undefined;
  required?: boolean;
  pickerTitle?: string;
}) {
  const helper = search.chosen ? `Selected: ${placeLabel(search.chosen)}` : (search.error ?? error ?? hint);
  return (
    <>
      <TextField
        label={label}
        value={search.query}
        onChange={(event) => search.handleQueryChange(event.target.value)}
        error={!search.chosen && Boolean(search.error ?? error)}
        helperText={helper}
        required={required}
        fullWidth
        slotProps={{
          htmlInput: { autoComplete: "off" },
          input: {
            endAdornment: search.searching ? (
              <InputAdornment position="end">
                <CircularProgress size={20} aria-label="Searching locations" />
              </InputAdornment>
            ) : search.chosen ? (
              <InputAdornment position="end">
                <CheckCircleIcon color="success" aria-label="Location selected" />
              </InputAdornment>
            ) : null,
          },
          formHelperText: { "aria-live": "polite" } as object,
        }}
      />
      <LocationPickerDialog
        choices={search.choices}
        title={pickerTitle}
        onChoose={search.handleChoose}
        onClose={search.handleCloseChoices}
      />
    </>
  );
}
