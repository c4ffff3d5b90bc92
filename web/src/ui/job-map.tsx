import { typePresentation } from "@turnout/domain";
import L from "leaflet";
import "leaflet/dist/leaflet.css";
import { useEffect, useRef } from "react";
import Supercluster, { type ClusterProperties } from "supercluster";
import "./map.css";

/** A job to draw: where, its type's colour, what a tap opens, and whether it is the newest. */
export type MapMarker = {
  id: number;
  latitude: number;
  longitude: number;
  type: string | null | undefined;
  label: string;
  newest: boolean;
};

/** Where the map starts without any job: Victoria. */
/** The pane the station is drawn in (see the map set-up). */
const STATION_PANE = "turnout-station-pane";
const DEFAULT_CENTRE: L.LatLngTuple = [-37.0, 144.5];
const DEFAULT_ZOOM = 7;
/** Fitting to the jobs never zooms in closer than this (a single job shows its streets around it). */
const FIT_MAX_ZOOM = 15;
const CLUSTER_RADIUS = 50;

const OSM_TEXT = "© OpenStreetMap contributors";

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/** The attribution as HTML: the setting's text (escaped), OpenStreetMap's with its copyright link. */
export function attributionHtml(text: string): string {
  if (text.trim() === OSM_TEXT) {
    return '© <a href="https://www.openstreetmap.org/copyright" target="_blank" rel="noreferrer">OpenStreetMap</a> contributors';
  }
  return escapeHtml(text);
}

type ClusterProps = { id: number; emergency: boolean };

const ignore = () => {};

/**
 * Leaflet's tile layer, except that a tile it no longer wants loses its address instead of getting
 * Leaflet's blank data: image, which the Content-Security-Policy (img-src: this origin and the tile
 * host only) would refuse and report.
 */
const PolicyTileLayer = L.TileLayer.extend({
  _abortLoading(
    this: L.TileLayer & {
      _tiles: Record<string, { el: HTMLImageElement; coords: L.Coords }>;
      _tileZoom: number;
    },
  ) {
    for (const key of Object.keys(this._tiles)) {
      const tile = this._tiles[key]!;
      if (tile.coords.z === this._tileZoom) continue;
      tile.el.onload = ignore;
      tile.el.onerror = ignore;
      if (!tile.el.complete) {
        tile.el.removeAttribute("src");
        L.DomUtil.remove(tile.el);
        delete this._tiles[key];
        this.fire("tileabort", { tile: tile.el, coords: tile.coords });
      }
    }
  },
  _removeTile(this: L.TileLayer & { _tiles: Record<string, { el: HTMLImageElement }> }, key: string) {
    const tile = this._tiles[key];
    if (!tile) return;
    tile.el.onload = ignore;
    tile.el.onerror = ignore;
    tile.el.removeAttribute("src");
    // biome-ignore lint/suspicious/noExplicitAny: Leaflet's private method, called as Leaflet's own TileLayer does
    return (L.GridLayer.prototype as any)._removeTile.call(this, key);
  },
}) as unknown as new (
  url: string,
  options?: L.TileLayerOptions,
) => L.TileLayer;

/**
 * A Leaflet map of jobs: markers coloured by type, clustered when close (supercluster), the newest
 * larger and pulsing; a tap on a job calls `onOpen`, on a cluster zooms into it. Tiles from the
 * configured template; `onTilesFailed` when none has loaded and tiles fail (offline, blocked by a
 * policy). `station` adds the station's marker (the turnout board). Fits the jobs when `fitKey`
 * changes, not on every update, so a live job does not move the map under the viewer's finger.
 */
export function JobMap({
  tileUrl,
  attribution,
  markers,
  fitKey,
  onOpen,
  onTilesFailed,
  station,
  interactive = true,
  label = "Map of jobs",
}: {
  tileUrl: string;
  attribution: string;
  markers: readonly MapMarker[];
  /** Null until the jobs have loaded; the map fits them whenever it changes. */
  fitKey: string | null;
  onOpen?: (id: number) => void;
  onTilesFailed?: () => void;
  station?: { latitude: number; longitude: number; name: string } | null;
  interactive?: boolean;
  label?: string;
}) {
  const element = useRef<HTMLElement>(null);
  const map = useRef<L.Map | null>(null);
  const layer = useRef<L.LayerGroup | null>(null);
  const draw = useRef<() => void>(() => {});
  /** Whether a zoom animation is under way (Leaflet's own flag is private). */
  const zooming = useRef(false);
  const callbacks = useRef({ onOpen, onTilesFailed });
  callbacks.current = { onOpen, onTilesFailed };

  // The map itself, once per tile source.
  useEffect(() => {
    if (!element.current) return;
    const m = L.map(element.current, {
      center: DEFAULT_CENTRE,
      zoom: DEFAULT_ZOOM,
      zoomControl: interactive,
      dragging: interactive,
      scrollWheelZoom: interactive,
      doubleClickZoom: interactive,
      touchZoom: interactive,
      keyboard: interactive,
      attributionControl: true,
    });
    let loaded = 0;
    let failed = false;
    const tiles = new PolicyTileLayer(tileUrl, { attribution: attributionHtml(attribution), maxZoom: 19 });
    tiles.on("tileload", () => {
      loaded += 1;
    });
    tiles.on("tileerror", () => {
      if (loaded === 0 && !failed) {
        failed = true;
        callbacks.current.onTilesFailed?.();
      }
    });
    tiles.addTo(m);
    // The station below the jobs (Leaflet's overlay pane is 400, its marker pane 600): a job placed at
    // the station's own suburb, the commonest page, stays in view rather than under the station.
    m.createPane(STATION_PANE).style.zIndex = "350";
    layer.current = L.layerGroup().addTo(m);
    map.current = m;
    const redraw = () => draw.current();
    m.on("moveend zoomend", redraw);
    const zoomStarted = () => {
      zooming.current = true;
    };
    const zoomEnded = () => {
      zooming.current = false;
    };
    m.on("zoomanim", zoomStarted);
    m.on("zoomend", zoomEnded);
    // A container that changes size (phone rotation, the list below growing) needs Leaflet told.
    const observer = new ResizeObserver(() => m.invalidateSize());
    observer.observe(element.current);
    return () => {
      observer.disconnect();
      m.off("moveend zoomend", redraw);
      m.off("zoomanim", zoomStarted);
      m.off("zoomend", zoomEnded);
      zooming.current = false;
      m.remove();
      map.current = null;
      layer.current = null;
    };
  }, [tileUrl, attribution, interactive]);

  // The markers, clustered at the current zoom.
  useEffect(() => {
    const index = new Supercluster<ClusterProps, { emergency: boolean }>({
      radius: CLUSTER_RADIUS,
      maxZoom: 16,
      map: (props) => ({ emergency: props.emergency }),
      reduce: (acc, props) => {
        acc.emergency = acc.emergency || props.emergency;
      },
    });
    const byId = new Map(markers.map((marker) => [marker.id, marker]));
    index.load(
      markers.map((marker) => ({
        type: "Feature" as const,
        properties: { id: marker.id, emergency: marker.type === "emergency" },
        geometry: { type: "Point" as const, coordinates: [marker.longitude, marker.latitude] },
      })),
    );
    draw.current = () => {
      const m = map.current;
      const group = layer.current;
      if (!m || !group) return;
      group.clearLayers();
      if (station) {
        L.marker([station.latitude, station.longitude], {
          // Its corner at the point, the badge up and left of it: a job at the same point covers the
          // corner only, and the "S" stays readable.
          icon: L.divIcon({
            className: "turnout-station",
            html: "S",
            iconSize: [26, 26],
            iconAnchor: [30, 30],
          }),
          title: station.name,
          keyboard: false,
          pane: STATION_PANE,
        }).addTo(group);
      }
      const bounds = m.getBounds();
      const clusters = index.getClusters(
        [bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()],
        Math.round(m.getZoom()),
      );
      for (const feature of clusters) {
        const [longitude, latitude] = feature.geometry.coordinates as [number, number];
        const props = feature.properties as Partial<ClusterProperties> & ClusterProps;
        if (props.cluster) {
          const count = props.point_count ?? 0;
          const size = count < 10 ? 34 : count < 100 ? 40 : 48;
          const cluster = L.marker([latitude, longitude], {
            icon: L.divIcon({
              className: `turnout-cluster${props.emergency ? " has-emergency" : ""}`,
              html: String(count),
              iconSize: [size, size],
            }),
            title: `${count} jobs here: zoom in`,
          });
          cluster.on("click", () => {
            m.setView([latitude, longitude], index.getClusterExpansionZoom(props.cluster_id!));
          });
          cluster.addTo(group);
          continue;
        }
        const marker = byId.get(props.id);
        if (!marker) continue;
        const color = typePresentation(marker.type).color;
        const circle = L.circleMarker([latitude, longitude], {
          radius: marker.newest ? 15 : 11,
          color: marker.newest ? "#111" : "#fff",
          weight: marker.newest ? 4 : 3,
          fillColor: color,
          fillOpacity: 0.9,
          className: `turnout-job turnout-job-${marker.id} turnout-type-${marker.type ?? "standard"}${marker.newest ? " turnout-newest" : ""}`,
          interactive: Boolean(callbacks.current.onOpen),
        });
        circle.bindTooltip(marker.label, { direction: "top", offset: [0, -10] });
        circle.on("click", () => callbacks.current.onOpen?.(marker.id));
        circle.addTo(group);
      }
    };
    draw.current();
  }, [markers, station]);

  // Fit the jobs (and the station) when asked to: once they have loaded, and when fitKey changes.
  // Leaflet ignores a view change asked for during a zoom animation (a live job arriving just after the
  // first fit, say), so a fit asked for then waits for the animation's end.
  const latest = useRef({ markers, station });
  latest.current = { markers, station };
  useEffect(() => {
    const m = map.current;
    if (!m || fitKey === null) return;
    const fit = () => {
      const { markers: shown, station: home } = latest.current;
      const points: L.LatLngTuple[] = shown.map((marker) => [marker.latitude, marker.longitude]);
      if (home) points.push([home.latitude, home.longitude]);
      if (points.length === 0) return;
      if (points.length === 1) m.setView(points[0]!, FIT_MAX_ZOOM - 1);
      else m.fitBounds(L.latLngBounds(points), { padding: [40, 40], maxZoom: FIT_MAX_ZOOM });
    };
    if (!zooming.current) {
      fit();
      return;
    }
    m.once("zoomend", fit);
    return () => {
      m.off("zoomend", fit);
    };
  }, [fitKey]);

  return <section ref={element} className="turnout-map" aria-label={label} data-testid="job-map" />;
}
