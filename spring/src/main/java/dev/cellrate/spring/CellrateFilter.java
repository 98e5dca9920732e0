package dev.cellrate.spring;

import dev.cellrate.Decision;
import dev.cellrate.Result;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.security.Principal;
import java.util.Enumeration;

/**
 * The Servlet filter (Spring MVC, Jakarta Servlet 6.1): one decision per request by the first configured limit
 * that matches it.
 * <ul>
 *     <li>enforce: a rejection is answered 429 with {@code Retry-After} (rounded up) and the limit's header
 *     fields, and the request goes no further;</li>
 *     <li>dry-run: every request goes through; one that enforcing would refuse carries
 *     {@code X-RateLimit-Dry-Run: would-reject} and is counted;</li>
 *     <li>shape: a request over the rate waits its turn on this thread (at most max-delay) and goes through;</li>
 *     <li>charge-after: a request goes through while its key has credit; when the response is done, its status
 *     (or cost header) is charged.</li>
 * </ul>
 * Allocation: the decision allocates nothing of its own; the Servlet API hands out the address and header
 * values as strings, path patterns need the path parsed once, and each header value set is a string.
 * A key that cannot be read (a malformed address or forwarded list, a missing header, a failing expression)
 * is the limit's fallback key: never an error.
 */
public final class CellrateFilter extends OncePerRequestFilter
{
    private final LimitRegistry registry;

    /**
     * @param registry the limits.
     */
    public CellrateFilter(final LimitRegistry registry)
    {
        this.registry = registry;
    }

    protected void doFilterInternal(
        final HttpServletRequest request, final HttpServletResponse response, final FilterChain chain)
        throws ServletException, IOException
    {
        final PathContainer path = registry.anyPaths() ? PathContainer.parsePath(pathWithinApplication(request)) : null;
        final NamedLimit limit = registry.match(request.getMethod(), path);
        if (null == limit)
        {
            chain.doFilter(request, response);
            return;
        }
        final NamedLimit.Scratch s = registry.scratch();
        resolveKey(limit, request, path, s);
        switch (limit.mode)
        {
            case SHAPE:
                shape(limit, s, request, response, chain);
                break;
            case CHARGE_AFTER:
                chargeAfter(limit, s, request, response, chain);
                break;
            default:
                decide(limit, s, request, response, chain);
                break;
        }
    }

    private void decide(
        final NamedLimit limit, final NamedLimit.Scratch s, final HttpServletRequest request,
        final HttpServletResponse response, final FilterChain chain) throws ServletException, IOException
    {
        final Decision decision = s.decision;
        final long code;
        final boolean filled;
        if (null != limit.redis)
        {
            final long raw = null == s.stringKey ?
                limit.redis.tryAcquire(s.longKey, 1, decision) : limit.redis.tryAcquire(s.stringKey, 1, decision);
            code = null == s.stringKey ? limit.count(s.longKey, raw) : limit.countString(s.stringKey, raw);
            filled = true;
        }
        else
        {
            final long nowNs = limit.clock.nanoTime();
            final Decision d = limit.wantsDecision() ? decision : null;
            code = null == s.stringKey ?
                limit.decideLocal(s.longKey, 1, nowNs, d) : limit.decideLocal(s.stringKey, 1, nowNs, d);
            filled = null != d;
        }
        if (Result.isAdmitted(code))
        {
            final boolean wouldReject = Result.WOULD_HAVE_REJECTED == code;
            if (filled || wouldReject)
            {
                if (!filled)
                {
                    decision.setOutcome(Result.ADMITTED, 0, 0, limit.limit().burst());
                }
                setHeaders(response, s, limit.headerFields(decision, false, wouldReject && filled, s));
                if (wouldReject && !filled)
                {
                    response.setHeader(NamedLimit.X_RATELIMIT_DRY_RUN, NamedLimit.WOULD_REJECT);
                }
            }
            chain.doFilter(request, response);
            return;
        }
        if (!filled)
        {
            limit.fillRejected(code, 1, decision);
        }
        reject(limit, s, response);
    }

    private void chargeAfter(
        final NamedLimit limit, final NamedLimit.Scratch s, final HttpServletRequest request,
        final HttpServletResponse response, final FilterChain chain) throws ServletException, IOException
    {
        final long nowNs = limit.clock.nanoTime();
        final CharSequence stringKey = s.stringKey;
        final long longKey = s.longKey;
        final long code = null == stringKey ? limit.count(longKey, limit.local.peek(longKey, 1, nowNs)) :
            limit.countString(stringKey, limit.local.peek(stringKey, 1, nowNs));
        if (!Result.isAdmitted(code))
        {
            limit.fillRejected(code, 1, s.decision);
            reject(limit, s, response);
            return;
        }
        try
        {
            chain.doFilter(request, response);
        }
        finally
        {
            ChargeAfter.charge(limit, response.getStatus(),
                null == limit.costHeader ? null : response.getHeader(limit.costHeader), longKey, stringKey);
        }
    }

    private void shape(
        final NamedLimit limit, final NamedLimit.Scratch s, final HttpServletRequest request,
        final HttpServletResponse response, final FilterChain chain) throws ServletException, IOException
    {
        final long nowNs = limit.clock.nanoTime();
        final long code = null == s.stringKey ?
            limit.shaper.reserve(s.longKey, 1, nowNs, s.reservation) :
            limit.shaper.reserve(s.stringKey, 1, nowNs, s.reservation);
        if (Result.isReserved(code) && code <= limit.maxDelayNs)
        {
            limit.stats.recordReservation(code);
            if (code > 0)
            {
                try
                {
                    Thread.sleep(code / 1_000_000, (int)(code % 1_000_000));
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }
            chain.doFilter(request, response);
            return;
        }
        final long retryAfterNs;
        if (Result.isReserved(code))
        {
            if (null == s.stringKey)
            {
                limit.shaper.cancel(s.longKey, s.reservation, nowNs);
            }
            else
            {
                limit.shaper.cancel(s.stringKey, s.reservation, nowNs);
            }
            retryAfterNs = code - limit.maxDelayNs;
        }
        else
        {
            retryAfterNs = Result.isEncodedRetryAfter(code) ? Result.decodeRetryAfterNs(code) : Long.MAX_VALUE;
        }
        limit.stats.record(Long.MAX_VALUE == retryAfterNs ? Result.NEVER : retryAfterNs);
        s.decision.setOutcome(Long.MAX_VALUE == retryAfterNs ? Result.NEVER : retryAfterNs, 0,
            Long.MAX_VALUE == retryAfterNs ? 0 : retryAfterNs, limit.limit().burst());
        reject(limit, s, response);
    }

    private void reject(final NamedLimit limit, final NamedLimit.Scratch s, final HttpServletResponse response)
        throws IOException
    {
        response.setStatus(429);
        setHeaders(response, s, limit.headerFields(s.decision, true, false, s));
        if (registry.problemDetails())
        {
            final byte[] body = ProblemBody.of(limit.name, s.decision.retryAfterNs());
            response.setContentType(ProblemBody.CONTENT_TYPE);
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }
        else
        {
            response.setContentLength(0);
        }
    }

    private static void setHeaders(final HttpServletResponse response, final NamedLimit.Scratch s, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            response.setHeader(s.names[i], s.values[i]);
        }
    }

    static String pathWithinApplication(final HttpServletRequest request)
    {
        final String uri = request.getRequestURI();
        final String context = request.getContextPath();
        return null == context || context.isEmpty() || !uri.startsWith(context) ? uri : uri.substring(context.length());
    }

    private static void resolveKey(
        final NamedLimit limit, final HttpServletRequest request, final PathContainer path, final NamedLimit.Scratch s)
    {
        switch (limit.keySource)
        {
            case ADDRESS:
                longKey(limit, s, ClientAddress.parse(request.getRemoteAddr(), limit.ipv6Prefix));
                break;
            case FORWARDED:
                longKey(limit, s, forwarded(limit, request, s));
                break;
            case HEADER:
                stringKey(limit, s, request.getHeader(limit.keyHeader));
                break;
            case PRINCIPAL:
                final Principal principal = request.getUserPrincipal();
                stringKey(limit, s, null == principal ? null : principal.getName());
                break;
            case PATH_VARIABLE:
                stringKey(limit, s, limit.match.variable(
                    null == path ? PathContainer.parsePath(pathWithinApplication(request)) : path, limit.variable));
                break;
            default:
                stringKey(limit, s, spel(limit, request));
                break;
        }
    }

    private static long forwarded(final NamedLimit limit, final HttpServletRequest request, final NamedLimit.Scratch s)
    {
        final Enumeration<String> values = request.getHeaders(limit.keyHeader);
        if (null == values)
        {
            return ClientAddress.NO_KEY;
        }
        final CharSequence[] lines = s.lines;
        int n = 0;
        while (values.hasMoreElements())
        {
            if (n == lines.length)
            {
                java.util.Arrays.fill(lines, null);
                return ClientAddress.NO_KEY;
            }
            lines[n++] = values.nextElement();
        }
        final long key = ClientAddress.fromRight(lines, n, limit.trustedHops, limit.ipv6Prefix);
        java.util.Arrays.fill(lines, 0, n, null);
        return key;
    }

    /** The limit's SpEL key of a request (Servlet or reactive), or null when it has none or the expression fails. */
    static String spel(final NamedLimit limit, final Object request)
    {
        try
        {
            final Object value = limit.expression.getValue(
                SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().withRootObject(request).build());
            return null == value ? null : value.toString();
        }
        catch (final RuntimeException ex)
        {
            return null;
        }
    }

    static void longKey(final NamedLimit limit, final NamedLimit.Scratch s, final long key)
    {
        if (ClientAddress.NO_KEY == key)
        {
            s.stringKey = limit.fallback;
        }
        else
        {
            s.stringKey = null;
            s.longKey = key;
        }
    }

    static void stringKey(final NamedLimit limit, final NamedLimit.Scratch s, final String key)
    {
        s.stringKey = null == key || key.isEmpty() || key.length() > LimitRegistry.MAX_KEY_LENGTH ? limit.fallback : key;
    }
}
