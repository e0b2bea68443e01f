"""The engine as a service: gnubg's external-player socket and an HTTP JSON API."""
