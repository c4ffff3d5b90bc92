import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import ListItemText from "@mui/material/ListItemText";
import MenuItem from "@mui/material/MenuItem";
import MenuList from "@mui/material/MenuList";
import { useId, useState } from "react";
import type { PostcodeMatch } from "../api/places";

/**
 * 'Select Your Location' (or `title`): opens when a postcode or suburb matches several places. The
 * matches are a listbox with roving focus (MenuList): focus starts on the first, Up/Down move, Enter picks.
 */
export function LocationPickerDialog({
  choices,
  title = "Select Your Location",
  onChoose,
  onClose,
}: {
  choices: PostcodeMatch[] | null;
  title?: string;
  onChoose: (match: PostcodeMatch) => void;
  onClose: () => void;
}) {
  const [activeIndex, setActiveIndex] = useState(0);
  const titleId = useId();

  return (
    <Dialog
      open={choices !== null}
      onClose={onClose}
      aria-labelledby={titleId}
      fullWidth
      slotProps={{ transition: { onEnter: () => setActiveIndex(0) } }}
    >
      <DialogTitle id={titleId}>{title}</DialogTitle>
      <DialogContent dividers sx={{ p: 0 }}>
        <MenuList role="listbox" aria-labelledby={titleId} autoFocusItem variant="menu">
          {(choices ?? []).map((match, index) => (
            <MenuItem
              key={`${match.postcode}-${match.suburb}-${match.state_abbreviation}`}
              role="option"
              aria-selected={index === activeIndex}
              onFocus={() => setActiveIndex(index)}
              onClick={() => onChoose(match)}
            >
              <ListItemText
                primary={match.suburb}
                secondary={`${match.state_abbreviation} ${match.postcode}`}
              />
            </MenuItem>
          ))}
        </MenuList>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
      </DialogActions>
    </Dialog>
  );
}
