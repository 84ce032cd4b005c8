// placeholder until cargo test regenerates
import type { UpdateCheck } from "./UpdateCheck";
export type UpdateSettings = { autoCheck: boolean, lastCheckedAt: string | null, lastCheck: UpdateCheck | null, currentVersion: string, };
