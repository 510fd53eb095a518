"""Running the service as deployed: the proxy's configuration (deploy/nginx) and the
whole topology on one machine without Docker (deploy.stack, ``make stack``)."""
