"""Request telemetry: one privacy-preserving record per request, the operator's report, OpenTelemetry export."""
