-- Issue 34: where a job is. Each alert with an address that places gets a position at ingest, with its
-- precision (coordinates, street, intersection or suburb); an admin may load an open address dataset
-- (G-NAF or OpenStreetMap extract) into address_points for street and intersection positions.
CREATE TABLE "alert_positions" (
  "alert_id" bigint PRIMARY KEY NOT NULL REFERENCES "alerts"("id") ON DELETE CASCADE,
  "latitude" double precision NOT NULL,
  "longitude" double precision NOT NULL,
  "precision" varchar(16) NOT NULL,
  "placed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "address_points" (
  "id" bigserial PRIMARY KEY NOT NULL,
  "state" varchar(3),
  "suburb" text NOT NULL,
  "street" text NOT NULL,
  "number" integer,
  "latitude" double precision NOT NULL,
  "longitude" double precision NOT NULL,
  "source" text NOT NULL,
  "loaded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "address_points_street_idx" ON "address_points" ("suburb", "street", "number");
