import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormGroup from "@mui/material/FormGroup";
import Switch from "@mui/material/Switch";
import Typography from "@mui/material/Typography";
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api } from "../../../api/client";
import { Section } from "../data-view/section";
import { securityKeys } from "./queries";

type AdminChoice = { id: number; first_name: string; last_name: string };
type Notifications = { enabled: boolean; admin_ids: number[]; admins: AdminChoice[] };
type Envelope<T> = { data: T };

const keys = {
  config: () => [...securityKeys.all, "auto-activation"] as const,
  notifications: () => [...securityKeys.all, "admin-notifications"] as const,
};

const autoActivationQuery = () =>
  queryOptions({
    queryKey: keys.config(),
    queryFn: async ({ signal }) =>
      (await api.get<Envelope<{ enabled: boolean }>>("/admin/auto-activation/config", { signal })).data,
  });

const notificationsQuery = () =>
  queryOptions({
    queryKey: keys.notifications(),
    queryFn: async ({ signal }) =>
      (await api.get<Envelope<Notifications>>("/admin/auto-activation/admin-notifications", { signal })).data,
  });

/**
 * Auto-activation of new accounts (issue 11): on, a verified account is active at once; off, it waits
 * for an admin in the Users tab ('Pending review'). And which admins get an SMS when one waits.
 */
export function AutoActivationSection({
  onNotice,
}: {
  onNotice: (message: string, error?: boolean) => void;
}) {
  const queryClient = useQueryClient();
  const config = useQuery(autoActivationQuery());
  const notifications = useQuery(notificationsQuery());
  const [chosen, setChosen] = useState<number[] | null>(null);
  useEffect(() => {
    if (notifications.data) setChosen(notifications.data.admin_ids);
  }, [notifications.data]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: securityKeys.all });
  const setAuto = useMutation({
    mutationFn: (enabled: boolean) => api.put("/admin/auto-activation/config", { enabled }),
    onSuccess: (_reply, enabled) =>
      onNotice(enabled ? "New accounts are activated automatically." : "New accounts now wait for review."),
    onError: (error) => onNotice(error.message, true),
    onSettled: refresh,
  });
  const setNotifications = useMutation({
    mutationFn: (input: { enabled: boolean; admin_ids: number[] }) =>
      api.put("/admin/auto-activation/admin-notifications", input),
    onSuccess: () => onNotice("Admin notifications saved."),
    onError: (error) => onNotice(error.message, true),
    onSettled: refresh,
  });

  const enabled = config.data?.enabled;
  const notify = notifications.data;
  const toggle = (id: number) =>
    setChosen((current) =>
      (current ?? []).includes(id) ? (current ?? []).filter((x) => x !== id) : [...(current ?? []), id],
    );

  return (
    <Section id="security-auto-activation-heading" title="Auto-activation">
      <FormControlLabel
        control={
          <Switch
            checked={enabled === true}
            disabled={enabled === undefined || setAuto.isPending}
            onChange={(event) => setAuto.mutate(event.target.checked)}
          />
        }
        label="Activate new accounts automatically"
      />
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {enabled === false
          ? "Off: a new account waits, after its activation code, until an admin activates it in the Users tab (Pending review); the member then gets the 'ready' SMS."
          : "On: a new account can sign in as soon as its activation code is checked."}
      </Typography>
      {notify && chosen ? (
        <>
          <FormControlLabel
            control={
              <Switch
                checked={notify.enabled}
                disabled={setNotifications.isPending}
                onChange={(event) =>
                  setNotifications.mutate({ enabled: event.target.checked, admin_ids: chosen })
                }
              />
            }
            label="Text admins when an account awaits review"
          />
          <FormGroup aria-label="Admins to text" sx={{ pl: 1 }}>
            {notify.admins.map((admin) => (
              <FormControlLabel
                key={admin.id}
                control={<Checkbox checked={chosen.includes(admin.id)} onChange={() => toggle(admin.id)} />}
                label={`${admin.first_name} ${admin.last_name}`}
              />
            ))}
          </FormGroup>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            With none ticked, every active admin is texted.
          </Typography>
          <Button
            variant="outlined"
            disabled={setNotifications.isPending}
            onClick={() => setNotifications.mutate({ enabled: notify.enabled, admin_ids: chosen })}
          >
            Save admins
          </Button>
        </>
      ) : null}
    </Section>
  );
}
