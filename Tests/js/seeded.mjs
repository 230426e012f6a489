// A seeded generator for the randomized tests (mulberry32): SORTKIT_SEED picks the seed, and a
// failing test names it so the run can be repeated.

export function seed() {
  const given = process.env.SORTKIT_SEED;
  return given ? Number(given) >>> 0 : (Date.now() ^ (Math.random() * 0x100000000)) >>> 0;
}

export function generator(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below) => Math.floor(next() * below);
  const pick = (items) => items[int(items.length)];
  return { next, int, pick };
}

/** Runs `body(random)` and adds the seed to any failure's message. */
export function withSeed(name, body) {
  const value = seed();
  try {
    body(generator(value));
  } catch (error) {
    error.message = `${error.message}\n(${name}: SORTKIT_SEED=${value} repeats this run)`;
    throw error;
  }
}

/** A map-backed stand-in for localStorage/sessionStorage. */
export class MemoryStorage {
  constructor() { this.items = new Map(); }
  getItem(key) { return this.items.has(key) ? this.items.get(key) : null; }
  setItem(key, value) { this.items.set(key, String(value)); }
  removeItem(key) { this.items.delete(key); }
}
