/** Who changed something through the admin API (CLI and automation, one shared token). */
export const ADMIN_API = "admin-api";
