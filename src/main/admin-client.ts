import { request } from "undici";

/** The CLI's door into a running server: the operator API, authenticated with the admin token. */
export interface AdminClient {
  call(
    method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }>;
}

export function createAdminClient(baseUrl: string, token: string): AdminClient {
  return {
    async call(method, path, body) {
      const res = await request(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      const text = await res.body.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = { success: false, message: text.slice(0, 200) };
      }
      return { status: res.statusCode, json };
    },
  };
}
