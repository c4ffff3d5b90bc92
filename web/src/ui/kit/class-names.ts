/** The class names given, without the false, null or undefined ones, as a `className`. */
export const classNames = (...names: Array<string | false | null | undefined>) =>
  names.filter(Boolean).join(" ");
