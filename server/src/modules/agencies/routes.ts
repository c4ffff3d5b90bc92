import { mkdirSync } from "node:fs";
import path from "node:path";
import multipart from "@fastify/multipart";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError, badRequest } from "../../errors.js";
import { idParamsSchema } from "../../request-schemas.js";
import { assertImagePixels, readImageHeader } from "../../support/image-header.js";
import {
  LOGO_DIR_PARTS,
  LOGO_FILE_NAME,
  LOGO_MAX_BYTES,
  LOGO_TYPES,
  LOGO_URL_PATH,
  LogoStore,
  type LogoType,
  sniffLogoType,
} from "./logo-store.js";
import { presentAdminAgency } from "./present.js";
import {
  createAgency,
  deleteAgency,
  getAgency,
  listAgencies,
  removeAgencyLogo,
  setAgencyLogo,
  updateAgency,
} from "./service.js";

const nameSchema = z.string().trim().min(1, "is required").max(100, "must be at most 100 characters");
const codeSchema = z
  .string()
  .trim()
  .toUpperCase()
  .min(1, "is required")
  .max(32, "must be at most 32 characters")
  .regex(/^[A-Z0-9_-]+$/, "may contain only letters, digits, '_' and '-'");
const descriptionSchema = z
  .string()
  .trim()
  .max(500, "must be at most 500 characters")
  .nullable()
  .optional()
  .transform((v) => (v === undefined ? undefined : v || null));

const newAgencyBody = z.object({ name: nameSchema, code: codeSchema, description: descriptionSchema });
const agencyChangesBody = z.object({
  name: nameSchema.optional(),
  code: codeSchema.optional(),
  description: descriptionSchema,
});

const LOGO_TYPE_NAMES = "PNG, JPEG, WebP or SVG";

/**
 * SPEC 7 'Admin: agencies and capcodes', the agency half: agencies with their logos (an agency's
 * capcodes are the capcodes module's routes).
 * Also serves uploaded logos, read-only, under `<prefix>/uploads/agency-logos/`.
 */
export async function agencyRoutes(app: FastifyInstance): Promise<void> {
  const logoDir = path.join(app.config.dataDir, ...LOGO_DIR_PARTS);
  mkdirSync(logoDir, { recursive: true });
  const logos = new LogoStore(logoDir, `${app.prefix}${LOGO_URL_PATH}`);

  await app.register(multipart, { limits: { fileSize: LOGO_MAX_BYTES, files: 1, fields: 10, parts: 11 } });
  await app.register(fastifyStatic, {
    root: logoDir,
    prefix: LOGO_URL_PATH,
    decorateReply: false,
    index: false,
    list: false,
    // Only names this module writes; anything else (the directory itself included) is a plain 404.
    allowedPath: (pathName) => LOGO_FILE_NAME.test(pathName.replace(/^\//, "")),
    // File names are new for every upload, so a served logo never changes.
    maxAge: "365d",
    immutable: true,
    setHeaders(reply, filePath) {
      reply.header("X-Content-Type-Options", "nosniff");
      // Opened directly, an SVG is a document: this keeps any script in it from running.
      if (filePath.endsWith(".svg")) {
        reply.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
      }
    },
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  const byId = { schema: { params: idParamsSchema } };
  const MULTIPART = { bodyTypes: ["multipart/form-data"] } as const;

  r.get("/admin/agencies", async () => {
    const rows = await listAgencies(app.db);
    return { success: true, data: rows.map(presentAdminAgency) };
  });

  r.post("/admin/agencies", { schema: { body: newAgencyBody } }, async (request, reply) => {
    const agency = await createAgency(app.db, request.body);
    return reply
      .status(201)
      .send({ success: true, message: "Agency created.", data: presentAdminAgency(agency) });
  });

  r.get("/admin/agencies/:id", byId, async (request) => {
    const agency = await getAgency(app.db, request.params.id);
    return { success: true, data: presentAdminAgency(agency) };
  });

  r.put(
    "/admin/agencies/:id",
    { schema: { params: idParamsSchema, body: agencyChangesBody } },
    async (request) => {
      const agency = await updateAgency(app.db, request.params.id, request.body);
      return { success: true, message: "Agency updated.", data: presentAdminAgency(agency) };
    },
  );

  r.delete("/admin/agencies/:id", byId, async (request) => {
    const agency = await deleteAgency(app.db, logos, request.params.id, app.services.events);
    return { success: true, message: `${agency.name} deleted.` };
  });

  r.post("/admin/agencies/:id/logo", { ...byId, config: MULTIPART }, async (request) => {
    const logo = await readLogoUpload(app, request);
    const agency = await setAgencyLogo(app.db, logos, request.params.id, logo);
    return { success: true, message: "Logo uploaded.", data: presentAdminAgency(agency) };
  });

  r.delete("/admin/agencies/:id/logo", byId, async (request) => {
    const agency = await removeAgencyLogo(app.db, logos, request.params.id);
    return { success: true, message: "Logo removed.", data: presentAdminAgency(agency) };
  });
}

/**
 * The single file of a multipart logo upload (field `logo`), checked by its bytes: the declared type
 * must be an allowed image type and the content must really be one.
 */
async function readLogoUpload(
  app: FastifyInstance,
  request: FastifyRequest,
): Promise<{ bytes: Buffer; type: LogoType }> {
  if (!request.isMultipart()) throw badRequest("Send the logo as multipart/form-data in the field 'logo'.");
  let fieldName: string;
  let mimetype: string;
  let bytes: Buffer;
  try {
    const part = await request.file();
    if (!part) throw badRequest("No file was sent: choose a logo (field 'logo').");
    fieldName = part.fieldname;
    mimetype = part.mimetype;
    bytes = await part.toBuffer();
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof app.multipartErrors.RequestFileTooLargeError) {
      throw new AppError(
        413,
        "validation_error",
        `The logo must be at most ${LOGO_MAX_BYTES / 1024 / 1024} MB.`,
      );
    }
    // Busboy's complaints about a malformed body (no boundary, cut off) are the client's fault.
    request.log.info({ err: error }, "unreadable logo upload");
    throw badRequest("The upload could not be read. Please choose the file again.");
  }
  if (fieldName !== "logo") throw badRequest("Send the logo in the field 'logo'.");
  const declared = mimetype === "image/jpg" ? "image/jpeg" : mimetype;
  if (!(declared in LOGO_TYPES)) throw badRequest(`A logo must be a ${LOGO_TYPE_NAMES} image.`);
  const type = sniffLogoType(bytes);
  if (!type) throw badRequest(`The file's content is not a ${LOGO_TYPE_NAMES} image.`);
  // A vector logo is drawn at the size it is shown; a raster one is decoded whole by every browser.
  if (type !== "image/svg+xml")
    assertImagePixels(await readImageHeader(bytes), app.config.media.maxImagePixels);
  return { bytes, type };
}
