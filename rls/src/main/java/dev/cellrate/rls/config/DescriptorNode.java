package dev.cellrate.rls.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One level of a domain's descriptor tree: its children by {@code key} or {@code key_value} (the map key the
 * reference service uses), the children whose value holds a {@code *} in the order they were declared, and the
 * rule of this entry, if any. Immutable once loaded.
 * <p>
 * Lookup: once loaded, the children are also indexed in an open-addressing table by {@link String#hashCode()} of
 * their map key, so a request entry's {@code key_value} is found by its hash, computed from the key and the value,
 * and compared char by char with the map key: the same child as a lookup of the joined string (ambiguous joins
 * included, such as key {@code a}, value {@code b_c} against key {@code a_b}, value {@code c}), without building
 * that string.
 */
public final class DescriptorNode
{
    private static final DescriptorNode[] NO_NODES = new DescriptorNode[0];
    private static final String[] NO_KEYS = new String[0];

    final Map<String, DescriptorNode> children = new LinkedHashMap<>();
    final List<Wildcard> wildcards = new ArrayList<>();
    RateLimitRule rule;
    boolean shareThreshold;
    boolean valueToMetric;
    private String[] indexKeys = NO_KEYS;
    private int[] indexHashes;
    private DescriptorNode[] indexNodes = NO_NODES;

    /**
     * A child whose {@code key_value} holds one or more {@code *}: the literal parts between them.
     */
    static final class Wildcard
    {
        final String mapKey;
        final String[] parts;
        /** The configured key's length; the configured value follows it and a {@code _}. */
        final int keyLength;
        /** The configured value (the pattern). */
        final String value;
        /** The child, once loaded. */
        DescriptorNode node;

        Wildcard(final String mapKey, final int keyLength)
        {
            this.mapKey = mapKey;
            this.parts = mapKey.split("\\*", -1);
            this.keyLength = keyLength;
            this.value = mapKey.substring(Math.min(mapKey.length(), keyLength + 1));
        }

        /**
         * @param keyLength a request entry's key length.
         * @return the map key after that key and its {@code _}: the pattern, as the joined string would give it.
         */
        String valueAfter(final int keyLength)
        {
            return keyLength == this.keyLength ? value : mapKey.substring(keyLength + 1);
        }

        /**
         * @param key   a request entry's key.
         * @param value its value.
         * @return true if every {@code *} can match zero or more characters so that the pattern spells
         * {@code key_value}.
         */
        boolean matches(final String key, final String value)
        {
            final int length = key.length() + 1 + value.length();
            final String first = parts[0];
            final String last = parts[parts.length - 1];
            if (length < first.length() + last.length() || !regionEquals(key, value, 0, first) ||
                !regionEquals(key, value, length - last.length(), last))
            {
                return false;
            }
            int from = first.length();
            final int to = length - last.length();
            for (int i = 1; i < parts.length - 1; i++)
            {
                final int at = indexOf(key, value, length, parts[i], from);
                if (at < 0 || at + parts[i].length() > to)
                {
                    return false;
                }
                from = at + parts[i].length();
            }
            return true;
        }
    }

    /** Index the children (after loading); then the same for every child. */
    void seal()
    {
        final int n = children.size();
        if (n > 0)
        {
            final int capacity = Integer.highestOneBit(Math.max(4, n * 2 - 1)) << 1; // at most half full
            indexKeys = new String[capacity];
            indexHashes = new int[capacity];
            indexNodes = new DescriptorNode[capacity];
            for (final Map.Entry<String, DescriptorNode> child : children.entrySet())
            {
                final int hash = child.getKey().hashCode();
                int slot = spread(hash) & (capacity - 1);
                while (null != indexKeys[slot])
                {
                    slot = (slot + 1) & (capacity - 1);
                }
                indexKeys[slot] = child.getKey();
                indexHashes[slot] = hash;
                indexNodes[slot] = child.getValue();
                child.getValue().seal();
            }
        }
        for (final Wildcard wildcard : wildcards)
        {
            wildcard.node = children.get(wildcard.mapKey);
        }
    }

    /**
     * @param mapKey a map key ({@code key} or {@code key_value}).
     * @return the child, or null.
     */
    DescriptorNode child(final String mapKey)
    {
        final String[] keys = indexKeys;
        if (0 == keys.length)
        {
            return null;
        }
        final int hash = mapKey.hashCode();
        final int mask = keys.length - 1;
        for (int slot = spread(hash) & mask; null != keys[slot]; slot = (slot + 1) & mask)
        {
            if (indexHashes[slot] == hash && keys[slot].equals(mapKey))
            {
                return indexNodes[slot];
            }
        }
        return null;
    }

    /**
     * @param key   a request entry's key.
     * @param value its value.
     * @return the child whose map key is {@code key + "_" + value}, or null.
     */
    DescriptorNode child(final String key, final String value)
    {
        final String[] keys = indexKeys;
        if (0 == keys.length)
        {
            return null;
        }
        int hash = 31 * key.hashCode() + '_'; // String.hashCode of the joined string, continued over the value
        for (int i = 0, n = value.length(); i < n; i++)
        {
            hash = 31 * hash + value.charAt(i);
        }
        final int length = key.length() + 1 + value.length();
        final int mask = keys.length - 1;
        for (int slot = spread(hash) & mask; null != keys[slot]; slot = (slot + 1) & mask)
        {
            final String candidate = keys[slot];
            if (indexHashes[slot] == hash && candidate.length() == length && candidate.startsWith(key) &&
                '_' == candidate.charAt(key.length()) && candidate.regionMatches(key.length() + 1, value, 0, value.length()))
            {
                return indexNodes[slot];
            }
        }
        return null;
    }

    private static int spread(final int hash)
    {
        return hash ^ (hash >>> 16);
    }

    /** The char at {@code i} of {@code key + "_" + value}. */
    private static char charAt(final String key, final String value, final int i)
    {
        final int keyLength = key.length();
        return i < keyLength ? key.charAt(i) : i == keyLength ? '_' : value.charAt(i - keyLength - 1);
    }

    /** True if {@code part} occurs at {@code offset} of {@code key + "_" + value} (which must hold it). */
    private static boolean regionEquals(final String key, final String value, final int offset, final String part)
    {
        for (int j = 0, n = part.length(); j < n; j++)
        {
            if (charAt(key, value, offset + j) != part.charAt(j))
            {
                return false;
            }
        }
        return true;
    }

    /** The first index at or after {@code from} where {@code part} occurs in {@code key + "_" + value}, or -1. */
    private static int indexOf(final String key, final String value, final int length, final String part,
        final int from)
    {
        for (int i = from; i + part.length() <= length; i++)
        {
            if (regionEquals(key, value, i, part))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * @return the rule at this entry, or null.
     */
    public RateLimitRule rule()
    {
        return rule;
    }

    /**
     * @return the children by map key ({@code key} or {@code key_value}).
     */
    public Map<String, DescriptorNode> children()
    {
        return Collections.unmodifiableMap(children);
    }
}
