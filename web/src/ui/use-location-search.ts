import { classifyLocationQuery, LOCATION_SEARCH_DEBOUNCE_MS, MESSAGES } from "@turnout/domain";
import { useCallback, useEffect, useRef, useState } from "react";
import { isApiError } from "../api/errors";
import { type PostcodeMatch, placesApi } from "../api/places";

export interface LocationSearch {
  query: string;
  chosen: PostcodeMatch | null;
  /** Several matches waiting for the user to pick one ('Select Your Location'). */
  choices: PostcodeMatch[] | null;
  searching: boolean;
  error: string | null;
  handleQueryChange: (text: string) => void;
  handleChoose: (match: PostcodeMatch) => void;
  handleCloseChoices: () => void;
}

/**
 * A location field's search (SPEC 5; registration and the admin's unit places): under 2 characters
 * nothing; digits are looked up only at exactly 4; text of 3+ characters is searched after a 300 ms
 * pause. One match is chosen at once, several open the picker, none shows the server's error. Any
 * edit clears the choice. `initial` starts with a place already chosen (editing a saved one).
 */
export function useLocationSearch(initial: PostcodeMatch | null = null): LocationSearch {
  const [query, setQuery] = useState(initial?.suburb ?? "");
  const [chosen, setChosen] = useState<PostcodeMatch | null>(initial);
  const [choices, setChoices] = useState<PostcodeMatch[] | null>(null);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<number | undefined>(undefined);
  const inFlight = useRef<AbortController | null>(null);

  const cancelPending = useCallback(() => {
    window.clearTimeout(timer.current);
    inFlight.current?.abort();
    inFlight.current = null;
  }, []);

  useEffect(() => cancelPending, [cancelPending]);

  const run = useCallback(async (kind: "postcode" | "search", text: string) => {
    const controller = new AbortController();
    inFlight.current = controller;
    setSearching(true);
    try {
      const reply =
        kind === "postcode"
          ? await placesApi.lookupPostcode(text, controller.signal)
          : await placesApi.searchLocations(text, controller.signal);
      if (controller.signal.aborted) return;
      const matches = reply.data ?? [];
      const [only] = matches;
      if (matches.length === 1 && only) {
        setChosen(only);
      } else if (matches.length > 1) {
        setChoices(matches);
      } else {
        setError(MESSAGES.LOCATION_NOT_FOUND);
      }
    } catch (caught) {
      if (controller.signal.aborted) return;
      if (isApiError(caught) && caught.status === 404) {
        const serverError = caught.body?.error ?? caught.body?.message;
        setError(typeof serverError === "string" && serverError ? serverError : MESSAGES.LOCATION_NOT_FOUND);
      } else {
        setError(MESSAGES.LOCATION_FAILED);
      }
    } finally {
      if (inFlight.current === controller) {
        inFlight.current = null;
        setSearching(false);
      }
    }
  }, []);

  const handleQueryChange = useCallback(
    (text: string) => {
      cancelPending();
      setQuery(text);
      setChosen(null);
      setChoices(null);
      setError(null);
      setSearching(false);
      const plan = classifyLocationQuery(text);
      if (plan.kind === "postcode") {
        void run("postcode", plan.postcode);
      } else if (plan.kind === "text") {
        timer.current = window.setTimeout(() => void run("search", plan.text), LOCATION_SEARCH_DEBOUNCE_MS);
      }
    },
    [cancelPending, run],
  );

  const handleChoose = useCallback((match: PostcodeMatch) => {
    setChosen(match);
    setChoices(null);
    setError(null);
  }, []);

  const handleCloseChoices = useCallback(() => setChoices(null), []);

  return { query, chosen, choices, searching, error, handleQueryChange, handleChoose, handleCloseChoices };
}
