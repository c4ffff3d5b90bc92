import { z } from "zod/mini";

// zod's mini form, which the web writes its schemas in, carries no messages of its own: a check with
// no message of ours reads "Invalid input". A screen that shows zod's messages to a person (a form)
// imports this module once, for the English ones the server sends too ("Too big: expected string to
// have <=100 characters"). The feed never shows one, so it does not load them.
z.config(z.locales.en());
