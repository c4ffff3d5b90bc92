import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { parseSearchTerms } from "@turnout/domain";
import { type FormEvent, useEffect, useId, useState } from "react";
import { DialogTitleWithClose } from "./dialog-title-with-close";

/**
 * 'Search Messages' (SPEC 2): keywords separated by spaces, every one must be in the message.
 * Enter or 'Search' applies them; 'Clear' removes the search.
 */
export function SearchDialog({
  open,
  initialSearch,
  onClose,
  onSearch,
}: {
  open: boolean;
  initialSearch: string;
  onClose: () => void;
  onSearch: (search: string) => void;
}) {
  const titleId = useId();
  const [text, setText] = useState(initialSearch);
  useEffect(() => {
    if (open) setText(initialSearch);
  }, [open, initialSearch]);
  const terms = parseSearchTerms(text);

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(text.trim().split(/\s+/).filter(Boolean).join(" "));
  };

  const handleClear = () => {
    setText("");
    onSearch("");
  };

  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <form onSubmit={handleSubmit} noValidate>
        <DialogTitleWithClose id={titleId} onClose={onClose}>
          Search Messages
        </DialogTitleWithClose>
        <DialogContent>
          <TextField
            autoFocus
            fullWidth
            label="Keywords"
            value={text}
            onChange={(event) => setText(event.target.value)}
            helperText="Separate keywords with spaces. Only messages containing every keyword are shown."
            slotProps={{ htmlInput: { enterKeyHint: "search", autoComplete: "off", maxLength: 200 } }}
            sx={{ mt: 1 }}
          />
          {terms.length > 1 ? (
            <Box sx={{ mt: 1.5, display: "flex", flexWrap: "wrap", alignItems: "center", gap: 0.75 }}>
              <Typography variant="body2" color="text.secondary">
                Must contain all of:
              </Typography>
              {terms.map((term) => (
                <Chip key={term} size="small" label={term} />
              ))}
            </Box>
          ) : null}
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={handleClear}>Clear</Button>
          <Button type="submit" variant="contained">
            Search
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
