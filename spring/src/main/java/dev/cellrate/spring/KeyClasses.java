package dev.cellrate.spring;

import dev.cellrate.KeyClassifier;
import dev.cellrate.Limit;
import org.agrona.collections.Long2LongHashMap;

import java.util.HashMap;
import java.util.Map;

/**
 * A limit's per-key classes: class 0 is the limit itself, classes 1.. the configured ones in order, each key
 * listed under a class mapped to it. Read-only after construction, so lookups are thread-safe; a lookup
 * allocates nothing for {@code long} (address) keys and {@code String} keys. The engine asks only when a key
 * is inserted into the table.
 */
final class KeyClasses implements KeyClassifier
{
    /** Most classes besides the default. */
    static final int MAX_CLASSES = 16;

    private final Limit[] limits;
    private final Map<String, Integer> byText = new HashMap<>();
    private final Long2LongHashMap byAddress = new Long2LongHashMap(0);

    KeyClasses(final String prefix, final Map<String, CellrateProperties.ClassProperties> classes,
        final KeySource source, final int ipv6Prefix)
    {
        if (classes.size() > MAX_CLASSES)
        {
            throw new IllegalArgumentException(prefix + " must have at most " + MAX_CLASSES + " classes but has " +
                classes.size());
        }
        this.limits = new Limit[classes.size()];
        final boolean addresses = KeySource.ADDRESS == source || KeySource.FORWARDED == source;
        int index = 0;
        for (final Map.Entry<String, CellrateProperties.ClassProperties> e : classes.entrySet())
        {
            final String at = prefix + "." + e.getKey();
            final CellrateProperties.ClassProperties c = e.getValue();
            limits[index] = LimitRegistry.limit(at, c);
            final int classIndex = ++index;
            for (int i = 0; i < c.getKeys().size(); i++)
            {
                final String key = c.getKeys().get(i);
                if (null == key || key.isEmpty() || key.length() > LimitRegistry.MAX_KEY_LENGTH)
                {
                    throw new IllegalArgumentException(at + ".keys[" + i + "] must be 1.." +
                        LimitRegistry.MAX_KEY_LENGTH + " characters but was '" + key + "'");
                }
                if (addresses)
                {
                    final long address = ClientAddress.parse(key, ipv6Prefix);
                    if (ClientAddress.NO_KEY == address)
                    {
                        throw new IllegalArgumentException(at + ".keys[" + i + "] must be an IP address but was '" +
                            key + "'");
                    }
                    byAddress.put(address, classIndex);
                }
                else
                {
                    byText.put(key, classIndex);
                }
            }
        }
    }

    Limit[] limits()
    {
        return limits;
    }

    public int classOf(final long key)
    {
        return (int)byAddress.get(key);
    }

    public int classOf(final CharSequence key)
    {
        final Integer c = byText.get(key instanceof String ? (String)key : key.toString());
        return null == c ? 0 : c;
    }
}
