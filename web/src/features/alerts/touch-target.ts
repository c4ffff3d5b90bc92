/**
 * Grows a small control's hit area to at least 44 px high without changing how it looks, so
 * a gloved or hurried finger still hits it; plus the app's visible focus ring.
 */
export const touchTarget = {
  position: "relative",
  "&::after": {
    content: '""',
    position: "absolute",
    left: 0,
    right: 0,
    top: "50%",
    height: 44,
    transform: "translateY(-50%)",
  },
  "&.Mui-focusVisible, &:focus-visible": {
    outline: "3px solid",
    outlineColor: "secondary.main",
    outlineOffset: 2,
  },
} as const;
