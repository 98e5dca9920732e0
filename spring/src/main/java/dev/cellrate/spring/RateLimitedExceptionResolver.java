package dev.cellrate.spring;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

import java.io.IOException;

/**
 * Spring MVC: answers a {@link RateLimitedException} 429 with the refusing limit's headers (and the problem body
 * when {@code cellrate.problem-details} is on), like {@link CellrateFilter}.
 */
public final class RateLimitedExceptionResolver implements HandlerExceptionResolver, Ordered
{
    private final LimitRegistry registry;

    /**
     * @param registry the limits.
     */
    public RateLimitedExceptionResolver(final LimitRegistry registry)
    {
        this.registry = registry;
    }

    public int getOrder()
    {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    public ModelAndView resolveException(
        final HttpServletRequest request, final HttpServletResponse response, final Object handler, final Exception ex)
    {
        if (!(ex instanceof RateLimitedException))
        {
            return null;
        }
        final RateLimitedException refused = (RateLimitedException)ex;
        response.setStatus(429);
        refused.headers(registry, response::setHeader);
        try
        {
            if (registry.problemDetails())
            {
                final byte[] body = refused.problemBody();
                response.setContentType(ProblemBody.CONTENT_TYPE);
                response.setContentLength(body.length);
                response.getOutputStream().write(body);
            }
            else
            {
                response.setContentLength(0);
            }
        }
        catch (final IOException io)
        {
            return null;
        }
        return new ModelAndView();
    }
}
