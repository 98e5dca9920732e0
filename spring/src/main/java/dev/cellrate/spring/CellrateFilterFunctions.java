package dev.cellrate.spring;

import dev.cellrate.Decision;
import dev.cellrate.Result;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import java.util.function.Function;

/**
 * A {@link HandlerFilterFunction} for Spring MVC's functional routes and the Spring Cloud Gateway Server MVC
 * (whose routes are {@code RouterFunction}s):
 * <pre>
 *   route("api").GET("/api/**", http()).before(uri("http://127.0.0.1:9000"))
 *       .filter(CellrateFilterFunctions.rateLimit(limits, "per-client", request -&gt; request.remoteAddress()...))
 *       .build();
 * </pre>
 * One decision per request on the named limit (local or Redis; enforce or dry-run), by the key the function
 * returns (null, empty or longer than 256 characters: the limit's fallback key). A rejection is answered 429
 * with {@code Retry-After} (rounded up) and the limit's header fields; admitted responses carry the fields
 * too when the limit says so.
 */
public final class CellrateFilterFunctions
{
    private CellrateFilterFunctions()
    {
    }

    /**
     * @param registry the limits.
     * @param name     a limit under {@code cellrate.limits} (local or Redis, enforce or dry-run).
     * @param key      the key of a request.
     * @return the filter function.
     * @throws IllegalArgumentException if there is no such limit or it cannot decide here.
     */
    public static HandlerFilterFunction<ServerResponse, ServerResponse> rateLimit(
        final LimitRegistry registry, final String name, final Function<ServerRequest, String> key)
    {
        final NamedLimit limit = registry.get(name);
        if (null == limit || (null == limit.decider && null == limit.redis) || LimitMode.CHARGE_AFTER == limit.mode)
        {
            throw new IllegalArgumentException("name must be an enforce or dry-run limit under cellrate.limits " +
                registry.names() + " but was " + name);
        }
        return (request, next) ->
        {
            final String raw = key.apply(request);
            final CharSequence k = null == raw || raw.isEmpty() || raw.length() > LimitRegistry.MAX_KEY_LENGTH ?
                limit.fallback : raw;
            final NamedLimit.Scratch s = registry.scratch();
            final Decision decision = s.decision;
            final long code = null != limit.redis ?
                limit.countString(k, limit.redis.tryAcquire(k, 1, decision)) :
                limit.decideLocal(k, 1, limit.clock.nanoTime(), decision);
            final boolean admitted = Result.isAdmitted(code);
            final int n = limit.headerFields(decision, !admitted, Result.WOULD_HAVE_REJECTED == code, s);
            final String[] names = new String[n];
            final String[] values = new String[n];
            System.arraycopy(s.names, 0, names, 0, n);
            System.arraycopy(s.values, 0, values, 0, n);
            if (!admitted)
            {
                final ServerResponse.BodyBuilder refused = ServerResponse.status(HttpStatus.TOO_MANY_REQUESTS);
                for (int i = 0; i < n; i++)
                {
                    refused.header(names[i], values[i]);
                }
                if (registry.problemDetails())
                {
                    return refused.contentType(org.springframework.http.MediaType.APPLICATION_PROBLEM_JSON)
                        .body(new String(ProblemBody.of(limit.name, decision.retryAfterNs()),
                            java.nio.charset.StandardCharsets.UTF_8));
                }
                return refused.build();
            }
            final ServerResponse response = next.handle(request);
            return 0 == n ? response : new WithHeaders(response, names, values);
        };
    }

    /** A handler's response with the limit's fields added when it is written (built responses are read-only). */
    private static final class WithHeaders implements ServerResponse
    {
        private final ServerResponse response;
        private final String[] names;
        private final String[] values;

        WithHeaders(final ServerResponse response, final String[] names, final String[] values)
        {
            this.response = response;
            this.names = names;
            this.values = values;
        }

        public org.springframework.http.HttpStatusCode statusCode()
        {
            return response.statusCode();
        }

        public org.springframework.http.HttpHeaders headers()
        {
            return response.headers();
        }

        public org.springframework.util.MultiValueMap<String, jakarta.servlet.http.Cookie> cookies()
        {
            return response.cookies();
        }

        public org.springframework.web.servlet.ModelAndView writeTo(
            final jakarta.servlet.http.HttpServletRequest request, final jakarta.servlet.http.HttpServletResponse out,
            final Context context) throws jakarta.servlet.ServletException, java.io.IOException
        {
            for (int i = 0; i < names.length; i++)
            {
                out.setHeader(names[i], values[i]);
            }
            return response.writeTo(request, out, context);
        }
    }
}
