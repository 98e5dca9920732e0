package dev.cellrate.rls.config;

/**
 * A configuration that cannot be loaded; the message names the file, the line (1-based), the field and what
 * it allows: {@code config/a.yaml:7: descriptors[0].rate_limit.unit: 'minutes' is not one of second, ...}.
 */
public final class ConfigException extends Exception
{
    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;
    private final String field;

    /**
     * @param file    the file.
     * @param line    the line, 1-based (0 if unknown).
     * @param field   the field's path in the file (empty for the file itself).
     * @param problem what is wrong and what is allowed.
     */
    public ConfigException(final String file, final int line, final String field, final String problem)
    {
        super(file + ":" + line + ": " + (field.isEmpty() ? "" : field + ": ") + problem);
        this.file = file;
        this.line = line;
        this.field = field;
    }

    public String file()
    {
        return file;
    }

    public int line()
    {
        return line;
    }

    public String field()
    {
        return field;
    }
}
