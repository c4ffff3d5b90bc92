import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Chip from "@mui/material/Chip";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import FormControlLabel from "@mui/material/FormControlLabel";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { parseSearchTerms } from "@turnout/domain";
import { type FormEvent, useEffect, useId, useState } from "react";
import { DialogTitleWithClose } from "./dialog-title-with-close";

/**
 * 'Search Messages' (SPEC 2): keywords separated by spaces, every one must be in the message.
 * Enter or 'Search' applies them; 'Clear' removes the search. With `initialShowMachine` (a member's
 * feed) it also offers machine and test pages (issue 26), which the feed hides otherwise.
 */
export function SearchDialog({
  open,
  initialSearch,
  initialShowMachine,
  onClose,
  onSearch,
}: {
  open: boolean;
  initialSearch: string;
  initialShowMachine?: boolean;
  onClose: () => void;
  onSearch: (search: string, showMachine?: boolean) => void;
}) {
  const titleId = useId();
  const [text, setText] = useState(initialSearch);
  const [showMachine, setShowMachine] = useState(initialShowMachine ?? false);
  useEffect(() => {
    if (open) {
      setText(initialSearch);
      setShowMachine(initialShowMachine ?? false);
    }
  }, [open, initialSearch, initialShowMachine]);
  const offersMachine = initialShowMachine !== undefined;
  const terms = parseSearchTerms(text);

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    onSearch(text.trim().split(/\s+/).filter(Boolean).join(" "), offersMachine ? showMachine : undefined);
  };

  const handleClear = () => {
    setText("");
    setShowMachine(false);
    onSearch("", offersMachine ? false : undefined);
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
          {offersMachine ? (
            <FormControlLabel
              sx={{ mt: 1 }}
              control={<Checkbox checked={showMachine} onChange={(e) => setShowMachine(e.target.checked)} />}
              label="Include machine and test pages (TIMEUPDATE, pager tests)"
            />
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
