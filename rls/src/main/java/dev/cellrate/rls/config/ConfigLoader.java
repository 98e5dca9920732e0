package dev.cellrate.rls.config;

import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Reads every {@code *.yaml} and {@code *.yml} file of a directory (not its subdirectories, not dot files) in
 * name order, each one domain in envoyproxy/ratelimit's format, and checks it whole: a file that cannot be
 * loaded fails the load with a {@link ConfigException} naming the file, the line and the field.
 * <p>
 * Fields: {@code domain}, {@code descriptors}; per descriptor {@code key}, {@code value}, {@code rate_limit},
 * {@code descriptors}, {@code shadow_mode}, {@code detailed_metric}, {@code share_threshold},
 * {@code value_to_metric}; per {@code rate_limit} {@code unit}, {@code requests_per_unit}, {@code unlimited},
 * {@code name}, {@code replaces} (a list of {@code name:}), and two extensions: {@code burst} (the bucket's
 * capacity, default {@code requests_per_unit}) and {@code units} (the window in units, default 1). Any other
 * field is an error, as in the reference service.
 */
public final class ConfigLoader
{
    /** Largest {@code requests_per_unit} and {@code burst}: the reference's uint32. */
    public static final long MAX_REQUESTS_PER_UNIT = 0xFFFF_FFFFL;
    /** Largest {@code units}. */
    public static final long MAX_UNITS = 1_000_000;
    /** Deepest descriptor nesting accepted. */
    public static final int MAX_DEPTH = 32;

    private static final Set<String> ROOT_FIELDS = Set.of("domain", "descriptors");
    private static final Set<String> DESCRIPTOR_FIELDS = Set.of(
        "key", "value", "rate_limit", "descriptors", "shadow_mode", "detailed_metric", "share_threshold",
        "value_to_metric");
    private static final Set<String> RATE_LIMIT_FIELDS = Set.of(
        "unit", "requests_per_unit", "unlimited", "name", "replaces", "burst", "units");

    private ConfigLoader()
    {
    }

    /**
     * @param directory the configuration directory.
     * @return the configuration of every file in it.
     * @throws ConfigException naming the file, line and field of the first problem.
     */
    public static RlsConfig load(final Path directory) throws ConfigException
    {
        final List<Path> files = new ArrayList<>();
        try (Stream<Path> list = Files.list(directory))
        {
            list.filter(ConfigLoader::isConfigFile).sorted().forEach(files::add);
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new ConfigException(directory.toString(), 0, "", "cannot list the directory: " + ex);
        }
        final Map<String, DescriptorNode> domains = new LinkedHashMap<>();
        final Map<String, String> domainFiles = new LinkedHashMap<>();
        final List<RateLimitRule> rules = new ArrayList<>();
        final List<String> names = new ArrayList<>();
        for (final Path file : files)
        {
            final String name = file.toString();
            final String text;
            try
            {
                text = Files.readString(file, StandardCharsets.UTF_8);
            }
            catch (final IOException | RuntimeException ex)
            {
                throw new ConfigException(name, 0, "", "cannot read the file as UTF-8: " + ex);
            }
            loadText(name, text, domains, domainFiles, rules);
            names.add(name);
        }
        return new RlsConfig(domains, rules, names, anyValueToMetric(domains.values()));
    }

    /**
     * @param name  the file's name, for messages.
     * @param texts one file's text per name (in this order).
     * @return the configuration of these texts.
     * @throws ConfigException naming the file, line and field of the first problem.
     */
    public static RlsConfig loadTexts(final String name, final String... texts) throws ConfigException
    {
        final Map<String, DescriptorNode> domains = new LinkedHashMap<>();
        final Map<String, String> domainFiles = new LinkedHashMap<>();
        final List<RateLimitRule> rules = new ArrayList<>();
        final List<String> names = new ArrayList<>();
        for (int i = 0; i < texts.length; i++)
        {
            final String fileName = texts.length == 1 ? name : name + "#" + i;
            loadText(fileName, texts[i], domains, domainFiles, rules);
            names.add(fileName);
        }
        return new RlsConfig(domains, rules, names, anyValueToMetric(domains.values()));
    }

    /**
     * @param path a path in the configuration directory.
     * @return true if it is a configuration file: a regular {@code *.yaml} or {@code *.yml}, not a dot file.
     */
    public static boolean isConfigFile(final Path path)
    {
        final String name = path.getFileName().toString();
        return !name.startsWith(".") && (name.endsWith(".yaml") || name.endsWith(".yml")) && Files.isRegularFile(path);
    }

    private static boolean anyValueToMetric(final Iterable<DescriptorNode> nodes)
    {
        for (final DescriptorNode node : nodes)
        {
            if (node.valueToMetric || anyValueToMetric(node.children.values()))
            {
                return true;
            }
        }
        return false;
    }

    private static void loadText(
        final String file, final String text, final Map<String, DescriptorNode> domains,
        final Map<String, String> domainFiles, final List<RateLimitRule> rules) throws ConfigException
    {
        final Optional<Node> document;
        try
        {
            final LoadSettings settings = LoadSettings.builder().setLabel(file).setAllowDuplicateKeys(false)
                .setMaxAliasesForCollections(50).build();
            document = new Compose(settings).composeString(text);
        }
        catch (final MarkedYamlEngineException ex)
        {
            final int line = ex.getProblemMark().map(m -> m.getLine() + 1).orElse(0);
            throw new ConfigException(file, line, "", "not valid YAML: " + ex.getProblem());
        }
        catch (final YamlEngineException | StackOverflowError ex)
        {
            throw new ConfigException(file, 0, "", "not valid YAML: " + ex.getMessage());
        }
        if (document.isEmpty())
        {
            throw new ConfigException(file, 1, "domain", "the file is empty; it must hold one domain");
        }
        final MappingNode root = mapping(file, document.get(), "");
        checkFields(file, root, "", ROOT_FIELDS);
        final Node domainNode = field(root, "domain");
        final String domain = null == domainNode ? null : scalar(file, domainNode, "domain");
        if (null == domain || domain.isEmpty())
        {
            throw new ConfigException(file, line(root), "domain", "must not be empty");
        }
        if (domainFiles.containsKey(domain))
        {
            throw new ConfigException(file, line(domainNode), "domain",
                "duplicate domain '" + domain + "' (already in " + domainFiles.get(domain) + ")");
        }
        final DescriptorNode top = new DescriptorNode();
        final Node descriptors = field(root, "descriptors");
        if (null != descriptors)
        {
            loadDescriptors(file, domain, domain, "descriptors", descriptors, top, rules, 1, true);
        }
        domains.put(domain, top);
        domainFiles.put(domain, file);
    }

    private static void loadDescriptors(
        final String file, final String domain, final String parentKey, final String path, final Node node,
        final DescriptorNode level, final List<RateLimitRule> rules, final int depth, final boolean explicitPath)
        throws ConfigException
    {
        if (depth > MAX_DEPTH)
        {
            throw new ConfigException(file, line(node), path, "descriptors nest deeper than " + MAX_DEPTH);
        }
        if (!(node instanceof SequenceNode))
        {
            throw new ConfigException(file, line(node), path, "must be a list of descriptors");
        }
        final List<Node> items = ((SequenceNode)node).getValue();
        for (int i = 0; i < items.size(); i++)
        {
            final String at = path + "[" + i + "]";
            final MappingNode item = mapping(file, items.get(i), at);
            checkFields(file, item, at, DESCRIPTOR_FIELDS);
            final Node keyNode = field(item, "key");
            final String key = null == keyNode ? "" : scalar(file, keyNode, at + ".key");
            if (key.isEmpty())
            {
                throw new ConfigException(file, line(item), at + ".key", "descriptor has an empty key");
            }
            final Node valueNode = field(item, "value");
            final String value = null == valueNode ? "" : scalar(file, valueNode, at + ".value");
            final String mapKey = value.isEmpty() ? key : key + "_" + value;
            final String fullKey = parentKey + "." + mapKey;
            final boolean explicit = explicitPath && !value.isEmpty() && !value.contains("*");
            if (level.children.containsKey(mapKey))
            {
                throw new ConfigException(file, line(item), at,
                    "duplicate descriptor composite key '" + fullKey + "'");
            }
            final DescriptorNode child = new DescriptorNode();
            final boolean shadowMode = bool(file, item, "shadow_mode", at);
            final boolean detailedMetric = bool(file, item, "detailed_metric", at);
            child.shareThreshold = bool(file, item, "share_threshold", at);
            child.valueToMetric = bool(file, item, "value_to_metric", at);
            if (child.shareThreshold && !mapKey.contains("*"))
            {
                throw new ConfigException(file, line(item), at + ".share_threshold",
                    "can only be used with a wildcard value (one holding '*'), but the value is '" + value + "'");
            }
            final Node rateLimit = field(item, "rate_limit");
            if (null != rateLimit)
            {
                child.rule = rule(file, domain, fullKey, at + ".rate_limit", rateLimit, shadowMode, detailedMetric,
                    explicit);
                rules.add(child.rule);
            }
            final Node nested = field(item, "descriptors");
            if (null != nested)
            {
                loadDescriptors(file, domain, fullKey, at + ".descriptors", nested, child, rules, depth + 1, explicit);
            }
            level.children.put(mapKey, child);
            if (mapKey.contains("*"))
            {
                level.wildcards.add(new DescriptorNode.Wildcard(mapKey, key.length()));
            }
        }
    }

    private static RateLimitRule rule(
        final String file, final String domain, final String fullKey, final String at, final Node node,
        final boolean shadowMode, final boolean detailedMetric, final boolean oneDescriptor) throws ConfigException
    {
        final MappingNode map = mapping(file, node, at);
        checkFields(file, map, at, RATE_LIMIT_FIELDS);
        final boolean unlimited = bool(file, map, "unlimited", at);
        final Node unitNode = field(map, "unit");
        final String unitName = null == unitNode ? null : scalar(file, unitNode, at + ".unit");
        final Unit unit = Unit.parse(unitName);
        String name = null;
        final Node nameNode = field(map, "name");
        if (null != nameNode)
        {
            name = scalar(file, nameNode, at + ".name");
            if (name.isEmpty())
            {
                name = null;
            }
        }
        final List<String> replaces = new ArrayList<>();
        final Node replacesNode = field(map, "replaces");
        if (null != replacesNode)
        {
            if (!(replacesNode instanceof SequenceNode))
            {
                throw new ConfigException(file, line(replacesNode), at + ".replaces", "must be a list of 'name:'");
            }
            final List<Node> list = ((SequenceNode)replacesNode).getValue();
            for (int i = 0; i < list.size(); i++)
            {
                final String rAt = at + ".replaces[" + i + "]";
                final MappingNode entry = mapping(file, list.get(i), rAt);
                checkFields(file, entry, rAt, Set.of("name"));
                final Node n = field(entry, "name");
                final String replaced = null == n ? "" : scalar(file, n, rAt + ".name");
                if (replaced.isEmpty())
                {
                    throw new ConfigException(file, line(entry), rAt + ".name", "should not be an empty replaces entry");
                }
                if (replaced.equals(name))
                {
                    throw new ConfigException(file, line(entry), rAt + ".name",
                        "replaces should not contain the name of the same descriptor ('" + name + "')");
                }
                replaces.add(replaced);
            }
        }
        final String source = file + ":" + line(node);
        if (unlimited)
        {
            if (null != unit)
            {
                throw new ConfigException(file, line(unitNode), at + ".unit", "should not be given when unlimited");
            }
            return new RateLimitRule(domain, fullKey, name, replaces, null, 1, 0, 0, true, shadowMode,
                detailedMetric, source, oneDescriptor);
        }
        if (null == unit)
        {
            throw new ConfigException(file, line(null == unitNode ? node : unitNode), at + ".unit",
                (null == unitName ? "is required" : "'" + unitName + "' is not a unit") +
                    ": one of second, minute, hour, day, week, month, year");
        }
        final long requestsPerUnit = number(file, map, "requests_per_unit", at, 0, MAX_REQUESTS_PER_UNIT, 0);
        final long units = number(file, map, "units", at, 1, MAX_UNITS, 1);
        final long burst = number(file, map, "burst", at, 1, MAX_REQUESTS_PER_UNIT, Math.max(1, requestsPerUnit));
        return new RateLimitRule(domain, fullKey, name, replaces, unit, units, requestsPerUnit,
            0 == requestsPerUnit ? 0 : burst, false, shadowMode, detailedMetric, source, oneDescriptor);
    }

    private static long number(
        final String file, final MappingNode map, final String name, final String at, final long min, final long max,
        final long absent) throws ConfigException
    {
        final Node node = field(map, name);
        if (null == node)
        {
            return absent;
        }
        final String text = scalar(file, node, at + "." + name);
        try
        {
            final long value = Long.parseLong(text.trim());
            if (value >= min && value <= max)
            {
                return value;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // reported below
        }
        throw new ConfigException(file, line(node), at + "." + name,
            "'" + text + "' must be an integer in [" + min + ", " + max + "]");
    }

    private static boolean bool(final String file, final MappingNode map, final String name, final String at)
        throws ConfigException
    {
        final Node node = field(map, name);
        if (null == node)
        {
            return false;
        }
        final String text = scalar(file, node, at + "." + name);
        switch (text)
        {
            case "true":
            case "True":
            case "TRUE":
                return true;
            case "false":
            case "False":
            case "FALSE":
                return false;
            default:
                throw new ConfigException(file, line(node), at + "." + name, "'" + text + "' must be true or false");
        }
    }

    private static MappingNode mapping(final String file, final Node node, final String at) throws ConfigException
    {
        if (!(node instanceof MappingNode))
        {
            throw new ConfigException(file, line(node), at.isEmpty() ? "(document)" : at, "must be a mapping");
        }
        return (MappingNode)node;
    }

    private static String scalar(final String file, final Node node, final String at) throws ConfigException
    {
        if (!(node instanceof ScalarNode))
        {
            throw new ConfigException(file, line(node), at, "must be a single value");
        }
        return ((ScalarNode)node).getValue();
    }

    private static void checkFields(final String file, final MappingNode map, final String at, final Set<String> allowed)
        throws ConfigException
    {
        for (final NodeTuple tuple : map.getValue())
        {
            final Node keyNode = tuple.getKeyNode();
            final String key = keyNode instanceof ScalarNode ? ((ScalarNode)keyNode).getValue() : null;
            if (null == key || !allowed.contains(key))
            {
                throw new ConfigException(file, line(keyNode), (at.isEmpty() ? "" : at + ".") + key,
                    "unknown field; allowed here: " + String.join(", ", new java.util.TreeSet<>(allowed)));
            }
        }
    }

    private static Node field(final MappingNode map, final String name)
    {
        for (final NodeTuple tuple : map.getValue())
        {
            final Node keyNode = tuple.getKeyNode();
            if (keyNode instanceof ScalarNode && name.equals(((ScalarNode)keyNode).getValue()))
            {
                return tuple.getValueNode();
            }
        }
        return null;
    }

    private static int line(final Node node)
    {
        return node.getStartMark().map(Mark::getLine).orElse(-1) + 1;
    }
}
