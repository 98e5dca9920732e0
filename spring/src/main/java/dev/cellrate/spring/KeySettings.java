package dev.cellrate.spring;

/**
 * The properties of {@link CellrateProperties.KeyProperties}: how a request's key is found ({@code
 * cellrate.limits.<name>.key.*}). Checked at start by {@link LimitRegistry}.
 */
abstract class KeySettings
{
    /** Where the key comes from. */
    private KeySource source = KeySource.ADDRESS;

    /** For source header: the header's name; for source forwarded: the header listing the hops. */
    private String header;

    /** For source forwarded: the trusted proxies in front of the application, in [1, 64]. */
    private int trustedHops = 1;

    /** For address keys: the IPv6 prefix length that makes one client, in [1, 64]. */
    private int ipv6Prefix = 64;

    /** For source path-variable: the variable's name in one of the limit's path patterns. */
    private String variable;

    /** For source spel: the expression, evaluated with the request as its root object. */
    private String expression;

    /** The key used when a request has none (no header, a malformed address), 1 to 256 characters. */
    private String fallback = "cellrate:no-key";

    public KeySource getSource()
    {
        return source;
    }

    public void setSource(final KeySource source)
    {
        this.source = source;
    }

    public String getHeader()
    {
        return header;
    }

    public void setHeader(final String header)
    {
        this.header = header;
    }

    public int getTrustedHops()
    {
        return trustedHops;
    }

    public void setTrustedHops(final int trustedHops)
    {
        this.trustedHops = trustedHops;
    }

    public int getIpv6Prefix()
    {
        return ipv6Prefix;
    }

    public void setIpv6Prefix(final int ipv6Prefix)
    {
        this.ipv6Prefix = ipv6Prefix;
    }

    public String getVariable()
    {
        return variable;
    }

    public void setVariable(final String variable)
    {
        this.variable = variable;
    }

    public String getExpression()
    {
        return expression;
    }

    public void setExpression(final String expression)
    {
        this.expression = expression;
    }

    public String getFallback()
    {
        return fallback;
    }

    public void setFallback(final String fallback)
    {
        this.fallback = fallback;
    }
}
