/**
 * A keyed 64-bit hash for turning user strings and byte strings into {@code long} keys: {@link SipHash}
 * (SipHash-2-4 under a 128-bit secret), the same function the keyed table applies to its own string and byte
 * keys. Integrations use it where they keep their own {@code long} identity for a key, e.g. a key built from
 * several strings. Layer: front helper; allocation-free after construction.
 * <p>
 * Memory ordering: none needed ({@link SipHash} is immutable; a {@link SipHash.Parts} belongs to one thread at
 * a time); the engine convention is in {@link dev.cellrate}.
 */
package dev.cellrate.hash;
