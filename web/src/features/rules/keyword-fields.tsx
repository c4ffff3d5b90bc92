import AddIcon from "@mui/icons-material/Add";
import RemoveCircleOutlinedIcon from "@mui/icons-material/RemoveCircleOutlined";
import Button from "@mui/material/Button";
import FormControl from "@mui/material/FormControl";
import FormHelperText from "@mui/material/FormHelperText";
import FormLabel from "@mui/material/FormLabel";
import IconButton from "@mui/material/IconButton";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import {
  KEYWORD_MAX_LENGTH,
  KEYWORD_SPACES_COMMAS_MESSAGE,
  KEYWORDS_MAX_COUNT,
  sanitizeKeywordInput,
} from "@turnout/domain";
import { type ChangeEvent, useEffect, useId, useRef, useState } from "react";

const SPACE_OR_COMMA = /[\s,]/;

/**
 * One field per keyword (SPEC 5): what is typed or pasted loses its spaces and commas and is
 * lower-cased; the first field is required; fields can be added, and removed while more than one remains.
 */
export function KeywordFields({
  keywords,
  onChange,
  error,
  disabled,
}: {
  keywords: string[];
  onChange: (keywords: string[]) => void;
  /** A problem with the keywords as a whole (e.g. a saved keyword that has a space). */
  error: string | null;
  disabled?: boolean;
}) {
  const [notice, setNotice] = useState<{ index: number; message: string } | null>(null);
  const inputs = useRef<Array<HTMLInputElement | null>>([]);
  const focusIndex = useRef<number | null>(null);
  const legendId = useId();
  const hintId = useId();

  useEffect(() => {
    if (focusIndex.current === null) return;
    inputs.current[focusIndex.current]?.focus();
    focusIndex.current = null;
  });

  const handleChange = (index: number) => (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.target;
    const raw = input.value;
    const cleaned = sanitizeKeywordInput(raw);
    if (cleaned !== raw) {
      // Write the cleaned text back with the caret where the user left it, so it does not jump to the end.
      const caret = input.selectionStart ?? raw.length;
      const position = sanitizeKeywordInput(raw.slice(0, caret)).length;
      input.value = cleaned;
      input.setSelectionRange(position, position);
    }
    if (SPACE_OR_COMMA.test(raw)) setNotice({ index, message: KEYWORD_SPACES_COMMAS_MESSAGE });
    else if (notice?.index === index) setNotice(null);
    onChange(keywords.map((keyword, i) => (i === index ? cleaned : keyword)));
  };

  const handleAdd = () => {
    focusIndex.current = keywords.length;
    setNotice(null);
    onChange([...keywords, ""]);
  };

  const handleRemove = (index: number) => {
    if (keywords.length <= 1) return;
    focusIndex.current = Math.max(0, index - 1);
    setNotice(null);
    onChange(keywords.filter((_, i) => i !== index));
  };

  return (
    <FormControl component="fieldset" error={error !== null} aria-describedby={hintId}>
      <FormLabel component="legend" id={legendId} sx={{ mb: 1 }}>
        Keywords
      </FormLabel>
      <FormHelperText id={hintId} sx={{ mx: 0, mt: 0, mb: 1.5 }} error={false}>
        One word per field. An SMS is sent only when ALL keywords appear in the same message.
      </FormHelperText>
      <Stack spacing={1.5}>
        {keywords.map((keyword, index) => {
          const label = `Keyword ${index + 1}`;
          const message = notice?.index === index ? notice.message : null;
          return (
            // Keyword fields have no identity of their own beyond their position.
            // biome-ignore lint/suspicious/noArrayIndexKey: position is the identity here
            <Stack key={index} direction="row" spacing={1} sx={{ alignItems: "flex-start" }}>
              <TextField
                label={label}
                value={keyword}
                onChange={handleChange(index)}
                required={index === 0}
                disabled={disabled}
                error={message !== null}
                helperText={message}
                fullWidth
                inputRef={(element: HTMLInputElement | null) => {
                  inputs.current[index] = element;
                }}
                slotProps={{
                  htmlInput: {
                    maxLength: KEYWORD_MAX_LENGTH,
                    autoCapitalize: "none",
                    autoCorrect: "off",
                    autoComplete: "off",
                    spellCheck: false,
                  },
                  formHelperText: { role: "alert" } as object,
                }}
              />
              {keywords.length > 1 ? (
                <IconButton
                  aria-label={`Remove keyword ${index + 1}`}
                  onClick={() => handleRemove(index)}
                  disabled={disabled}
                  sx={{ mt: 0.5 }}
                >
                  <RemoveCircleOutlinedIcon />
                </IconButton>
              ) : null}
            </Stack>
          );
        })}
      </Stack>
      {error ? (
        <FormHelperText role="alert" sx={{ mx: 0 }}>
          {error}
        </FormHelperText>
      ) : null}
      <Button
        startIcon={<AddIcon />}
        onClick={handleAdd}
        disabled={disabled || keywords.length >= KEYWORDS_MAX_COUNT}
        sx={{ alignSelf: "flex-start", mt: 1 }}
      >
        Add keyword
      </Button>
    </FormControl>
  );
}
