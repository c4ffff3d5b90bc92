import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import List from "@mui/material/List";
import ListItemButton from "@mui/material/ListItemButton";
import ListItemText from "@mui/material/ListItemText";
import type { PostcodeMatch } from "./auth-api";

/** 'Select Your Location': opens when a postcode or suburb matches several places. */
export function LocationPickerDialog({
  choices,
  onChoose,
  onClose,
}: {
  choices: PostcodeMatch[] | null;
  onChoose: (match: PostcodeMatch) => void;
  onClose: () => void;
}) {
  return (
    <Dialog open={choices !== null} onClose={onClose} aria-labelledby="location-picker-title" fullWidth>
      <DialogTitle id="location-picker-title">Select Your Location</DialogTitle>
      <DialogContent dividers sx={{ p: 0 }}>
        <List aria-labelledby="location-picker-title">
          {(choices ?? []).map((match) => (
            <ListItemButton
              key={`${match.postcode}-${match.suburb}-${match.state_abbreviation}`}
              onClick={() => onChoose(match)}
            >
              <ListItemText
                primary={match.suburb}
                secondary={`${match.state_abbreviation} ${match.postcode}`}
              />
            </ListItemButton>
          ))}
        </List>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
      </DialogActions>
    </Dialog>
  );
}
