package dev.cellrate.spring;

/** Which rate-limit header fields responses carry ({@code Retry-After} is always on a rejection). */
public enum HeaderStyle
{
    /** {@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers). */
    IETF,
    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}. */
    LEGACY,
    /** None. */
    NONE
}
