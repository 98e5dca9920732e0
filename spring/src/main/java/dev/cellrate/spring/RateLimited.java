package dev.cellrate.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits calls to a bean method by a configured limit ({@code cellrate.limits.<name>}, a local one), per key.
 * <p>
 * Repeatable: the limits on one method are decided all-or-nothing (the engine's composite), so a call refused by
 * a later limit takes nothing from the earlier ones. A refused call throws {@link RateLimitedException}, which
 * carries the retry-after; the web layers answer it 429 with the same headers as the filters.
 * <pre>
 *   &#64;RateLimited(name = "per-user", key = "#user.id")
 *   &#64;RateLimited(name = "per-tenant", key = "#tenant")
 *   public Report export(User user, String tenant) { ... }
 * </pre>
 * The key is a SpEL expression over the method's arguments ({@code #name}, {@code #p0}, {@code #a0}; the class
 * must be compiled with {@code -parameters} for names). An integral number is the key itself; anything else is
 * its string, hashed to 64 bits with a secret drawn at start-up (SipHash-2-4). An empty key, a null value or
 * a failing expression is the limit's fallback key. These keys are cells of their own: a limit that the web
 * filters also apply counts its {@code @RateLimited} string keys apart from the filters' keys.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@Repeatable(RateLimited.List.class)
public @interface RateLimited
{
    /**
     * @return the limit's name under {@code cellrate.limits}.
     */
    String name();

    /**
     * @return a SpEL expression over the arguments giving the key; empty means one key for every call.
     */
    String key() default "";

    /**
     * @return permits one call costs, at least 1 and at most every limit's burst; the same on every repeated
     * annotation of one method.
     */
    long cost() default 1;

    /** The container of repeated {@link RateLimited}. */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @interface List
    {
        /**
         * @return the limits.
         */
        RateLimited[] value();
    }
}
