package dev.cellrate.spring;

/** Where a limit finds each request's key. */
public enum KeySource
{
    /** The connection's remote address (IPv6 grouped by the configured prefix). */
    ADDRESS,
    /** The address trusted proxies report in a header (X-Forwarded-For by default), counted from the right. */
    FORWARDED,
    /** A request header's value. */
    HEADER,
    /** The authenticated principal's name. */
    PRINCIPAL,
    /** A path variable of the limit's path pattern. */
    PATH_VARIABLE,
    /** A SpEL expression over the request. */
    SPEL
}
