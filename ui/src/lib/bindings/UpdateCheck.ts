// placeholder until cargo test regenerates
export type UpdateCheck = { available: boolean, currentVersion: string, version: string | null, notes: string | null, date: string | null, checkedAt: string, };
