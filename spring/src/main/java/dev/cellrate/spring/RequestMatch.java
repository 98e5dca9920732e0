package dev.cellrate.spring;

import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

import java.util.List;
import java.util.Map;

/**
 * The requests a limit applies to: path patterns (Spring's {@link PathPattern} syntax) and methods.
 */
final class RequestMatch
{
    private final PathPattern[] patterns;
    private final String[] methods;

    RequestMatch(final String property, final List<String> paths, final List<String> methods)
    {
        this.patterns = new PathPattern[paths.size()];
        for (int i = 0; i < patterns.length; i++)
        {
            try
            {
                patterns[i] = PathPatternParser.defaultInstance.parse(paths.get(i));
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalArgumentException(
                    property + ".paths[" + i + "] must be a path pattern but was '" + paths.get(i) + "': " +
                    ex.getMessage(), ex);
            }
        }
        this.methods = new String[methods.size()];
        for (int i = 0; i < this.methods.length; i++)
        {
            final String m = methods.get(i);
            if (null == m || !m.matches("[A-Za-z]{1,16}"))
            {
                throw new IllegalArgumentException(
                    property + ".methods[" + i + "] must be an HTTP method name (1..16 letters) but was '" + m + "'");
            }
            this.methods[i] = m.toUpperCase(java.util.Locale.ROOT);
        }
    }

    boolean hasPaths()
    {
        return patterns.length > 0;
    }

    boolean matchesMethod(final String method)
    {
        if (0 == methods.length)
        {
            return true;
        }
        for (final String m : methods)
        {
            if (m.equals(method))
            {
                return true;
            }
        }
        return false;
    }

    boolean matchesPath(final PathContainer path)
    {
        if (0 == patterns.length)
        {
            return true;
        }
        for (final PathPattern p : patterns)
        {
            if (p.matches(path))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the variable's value in the first pattern that matches and binds it, or null.
     */
    String variable(final PathContainer path, final String name)
    {
        for (final PathPattern p : patterns)
        {
            final PathPattern.PathMatchInfo info = p.matchAndExtract(path);
            if (null != info)
            {
                final Map<String, String> vars = info.getUriVariables();
                final String v = vars.get(name);
                if (null != v)
                {
                    return v;
                }
            }
        }
        return null;
    }

    boolean bindsVariable(final String name)
    {
        for (final PathPattern p : patterns)
        {
            if (p.getPatternString().contains("{" + name + "}") || p.getPatternString().contains("{" + name + ":") ||
                p.getPatternString().contains("{*" + name + "}"))
            {
                return true;
            }
        }
        return false;
    }
}
