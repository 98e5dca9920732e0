package dev.cellrate.spring;

import org.springframework.stereotype.Service;

/** A bean with rate-limited methods. */
@Service
class Quotes
{
    @RateLimited(name = "user", key = "#user")
    @RateLimited(name = "tenant", key = "#tenant")
    public String both(final String user, final String tenant)
    {
        return "quote for " + user + "@" + tenant;
    }

    @RateLimited(name = "user", key = "#id", cost = 2)
    public String expensive(final long id)
    {
        return "expensive " + id;
    }

    @RateLimited(name = "nope", key = "#x")
    public String unknown(final String x)
    {
        return x;
    }
}
