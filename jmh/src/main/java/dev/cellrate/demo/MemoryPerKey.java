package dev.cellrate.demo;

public final class MemoryPerKey
{
    public static void main(final String[] args)
    {
    }
}
